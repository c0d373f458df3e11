/**
 * Where the public API is reached. Without `PUBLIC_BASE_URL` the service cannot know its own address (a proxy may
 * sit in front), so links are root-relative and resolve against whatever served them (CONTRACT.md: the OpenAPI
 * `servers` entry is then `/`).
 */
import type { Config } from './config/config.ts';

export type BaseUrlConfig = Pick<Config, 'PUBLIC_BASE_URL'>;

/** The base without a trailing slash, prefixed to absolute paths; empty when none is configured. */
export const baseUrl = (config: BaseUrlConfig): string => (config.PUBLIC_BASE_URL ?? '').replace(/\/$/, '');

/** The base itself as a URL reference: the configured one, else `/`. */
export const baseUrlOrRoot = (config: BaseUrlConfig): string => baseUrl(config) || '/';
