/** The demo catalogue speaks for the service's one (fictional) manufacture. */
export { BRAND as DEMO_BRAND } from '../../shared/brand.ts';
