/** `/.well-known/ai-brief.json`: the brand brief for automated agents, from the brand, the operations and the config. */
import type { OperationSpec } from '../../shared/read-model/public-api/operations/operation.ts';
import { BRAND } from '../../shared/brand.ts';
import { MCP_PATH } from '../../shared/read-model/public-api/operations/status.operation.ts';
import { baseUrl, baseUrlOrRoot } from '../../shared/public-base-url.ts';
import type { DiscoveryConfig } from './llms-txt.ts';
import { openApiPath } from './openapi.ts';
import { LOG_PREFIX } from '../../shared/read-model/public-api/operations/transparency-endpoints.ts';

export function buildAiBrief(operations: readonly OperationSpec[], config: DiscoveryConfig) {
  const base = baseUrl(config);
  return {
    brand: {
      name: BRAND.name,
      tagline: BRAND.tagline,
      description: BRAND.summary,
      country: BRAND.country,
      origin: BRAND.origin,
      founded: BRAND.founded,
      website: baseUrlOrRoot(config),
    },
    api: { name: `${BRAND.name} public catalogue API`, version: '1.0.0', base_url: baseUrlOrRoot(config), openapi: `${base}/.well-known/openapi-public.json` },
    offers: operations.map((op) => ({
      id: op.id, method: op.method, path: openApiPath(op.path), summary: op.summary, description: op.description,
    })),
    languages: [...BRAND.languages],
    default_language: 'en',
    currency: BRAND.currency,
    policies: {
      customer_data: 'none: no operation returns or stores customer data; serial verification gives authenticity and stolen status only',
      read_only: true,
      authentication: 'none',
      prices: 'EUR, tax included, computed in integer cents',
      rate_limits: {
        per_ip_per_minute: config.RATE_LIMIT_PER_MINUTE,
        verify_per_ip_per_minute: config.VERIFY_RATE_LIMIT_PER_MINUTE,
        // One budget for every client's verifications together (against enumeration from many addresses).
        verify_all_clients_per_minute: config.VERIFY_GLOBAL_RATE_LIMIT_PER_MINUTE,
        exceeded: 'HTTP 429 with Retry-After (seconds)',
      },
      custom_order_delivery_weeks: { min: BRAND.customOrderDeliveryWeeks.min, max: BRAND.customOrderDeliveryWeeks.max },
    },
    links: {
      status: `${base}/api/public/status`,
      llms_txt: `${base}/llms.txt`,
      llms_full_txt: `${base}/llms-full.txt`,
      openapi: `${base}/.well-known/openapi-public.json`,
      docs: `${base}/docs`,
      mcp: `${base}${MCP_PATH}`,
      // What an agent checks a signed answer and a proof against.
      jwks: `${base}/.well-known/jwks.json`,
      transparency_log: `${base}${LOG_PREFIX}`,
    },
  };
}
