/** GET /api/public/status: health and capability discovery for people and automated agents. */
import { LANGUAGES, type Language } from '../../../events/common.ts';
import { baseUrl } from '../../../public-base-url.ts';
import { LangOnlyQuery, rateLimitedResponse, unavailableResponse, validationResponse, ReadModelHeaders } from '../schemas/common.schema.ts';
import { ServiceStatus } from '../schemas/status.schema.ts';
import type { PublicOperationSpec } from './operation.ts';
import { ok, type OperationEnv, type PublicOperation } from './public-operation.ts';

/** The discovery files every deployment serves beside the operations (see docs/api.md), summed up as the operations are. */
const DISCOVERY_FILES = [
  { path: '/llms.txt', summary: 'Summary for language models (llms.txt convention)', summaryFr: 'Résumé pour les modèles de langage (convention llms.txt)' },
  {
    path: '/llms-full.txt', summary: 'Complete reference: every operation, parameter, error and limit',
    summaryFr: 'Référence complète : chaque opération, paramètre, erreur et limite',
  },
  { path: '/.well-known/openapi-public.json', summary: 'OpenAPI 3.1.0 description of the public operations', summaryFr: 'Description OpenAPI 3.1.0 des opérations publiques' },
  { path: '/.well-known/ai-brief.json', summary: 'Brand brief for automated agents', summaryFr: 'Présentation de la marque pour les agents automatisés' },
  { path: '/.well-known/jwks.json', summary: 'Public keys that sign answers on request (JWK Set)', summaryFr: 'Clés publiques qui signent les réponses sur demande (JWK Set)' },
] as const;

/** What an operation or a discovery file is for, in `lang`. */
const summaryIn = (lang: Language, listed: { summary: string; summaryFr: string }) => (lang === 'fr' ? listed.summaryFr : listed.summary);

/** Where the public port serves the Model Context Protocol (docs/api.md, "Agents over MCP"). */
export const MCP_PATH = '/mcp';

/** Where the transparency log's verifier key is served (docs/api.md, "Transparency log"). */
export const TRANSPARENCY_KEY_PATH = '/.well-known/transparency/key';

/** `/api/public/catalogue/:reference` as OpenAPI and people write it: `/api/public/catalogue/{reference}`. */
const templatePath = (path: string) => path.replace(/:(\w+)/g, '{$1}');

async function buildStatus(env: OperationEnv, lang: LangOnlyQuery['lang']): Promise<ServiceStatus> {
  const { config, brand, clock } = env;
  const base = baseUrl(config);
  return {
    service: `${brand.name} public catalogue API`,
    version: '1.0.0',
    status: await env.health(),
    brand: { name: brand.name, tagline: brand.tagline[lang], country: brand.country, founded: brand.founded, website: brand.website },
    languages: [...LANGUAGES],
    endpoints: [
      ...env.operations.map((op) => ({ method: op.method, path: templatePath(op.path), summary: summaryIn(lang, op) })),
      ...DISCOVERY_FILES.map((file) => ({ method: 'GET', path: file.path, summary: summaryIn(lang, file) })),
    ],
    rate_limits: {
      per_ip_per_minute: config.RATE_LIMIT_PER_MINUTE, verify_per_ip_per_minute: config.VERIFY_RATE_LIMIT_PER_MINUTE,
    },
    agents: {
      llms_txt: `${base}/llms.txt`,
      llms_full_txt: `${base}/llms-full.txt`,
      openapi: `${base}/.well-known/openapi-public.json`,
      ai_brief: `${base}/.well-known/ai-brief.json`,
      jwks: `${base}/.well-known/jwks.json`,
      mcp: `${base}${MCP_PATH}`,
      transparency: `${base}${TRANSPARENCY_KEY_PATH}`,
    },
    read_model: { position: clock.current(), updated_at: clock.updatedAt, projections: clock.projections() },
  };
}

const statusSpec: PublicOperationSpec = {
  id: 'getStatus',
  method: 'GET',
  path: '/api/public/status',
  summary: 'Service status and capabilities',
  summaryFr: 'État du service et ses capacités',
  description: 'Health, brand, endpoints, rate limits, links for automated agents and the read-model position served.',
  tags: ['Status'],
  params: { query: LangOnlyQuery, header: ReadModelHeaders },
  responses: {
    '200': { description: 'The status', schema: ServiceStatus },
    '422': validationResponse,
    '429': rateLimitedResponse,
    '503': { ...unavailableResponse, description: 'Only when `X-Min-Position` was sent: the read models did not reach it in time; retry after `Retry-After` seconds' },
  },
  cacheControl: 'no-cache',
};

export const statusOperation: PublicOperation = {
  spec: statusSpec,
  // It reads no collection: it reports where the projections stand, as the clock serves them.
  reads: [],
  // It carries the health, which can change without the read model moving.
  cacheable: false,
  async handle(request, env) {
    return ok(await buildStatus(env, (request.query as LangOnlyQuery).lang));
  },
};
