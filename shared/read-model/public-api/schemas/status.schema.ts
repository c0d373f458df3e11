/** The status answer: health, brand, capabilities and where automated agents find the discovery files. */
import Type from 'typebox';
import { Lang } from '../../documents/documents.ts';

/** One read model as this API process can vouch for it (docs/api.md, "Honest answers"). */
const ProjectionFreshness = Type.Object({
  name: Type.String({ description: 'The projection, named after the read collection it writes.' }),
  position: Type.Integer({ description: 'Position of the last event it reflects, as served.' }),
  built: Type.Boolean({ description: 'Its projector has confirmed reaching the event store\'s head at least once: it is served.' }),
  fresh: Type.Boolean({ description: 'Seen confirmed at the head within READ_MODEL_MAX_LAG_SECONDS (verifications have their own, tighter bound).' }),
  lag_seconds: Type.Union([Type.Number(), Type.Null()], { description: 'Seconds since this process saw that confirmation happen; null before it saw one.' }),
}, { title: 'ProjectionFreshness' });

export const ServiceStatus = Type.Object({
  service: Type.String(),
  version: Type.Literal('1.0.0'),
  status: Type.Union([Type.Literal('ok'), Type.Literal('degraded')]),
  brand: Type.Object({
    name: Type.String(), tagline: Type.String(), country: Type.String(), founded: Type.Integer(), website: Type.String(),
  }),
  languages: Type.Array(Lang),
  endpoints: Type.Array(Type.Object({ method: Type.String(), path: Type.String(), summary: Type.String() })),
  rate_limits: Type.Object({ per_ip_per_minute: Type.Integer(), verify_per_ip_per_minute: Type.Integer() }),
  agents: Type.Object({
    llms_txt: Type.String(), llms_full_txt: Type.String(), openapi: Type.String(), ai_brief: Type.String(),
    jwks: Type.String({ description: 'JWK Set of the public keys that sign answers to requests with Accept-Signature.' }),
    mcp: Type.String({ description: 'Model Context Protocol endpoint (POST, Streamable HTTP): one read-only tool per operation.' }),
    transparency: Type.String({ description: 'Verifier key of the transparency log that holds every event (signed checkpoints at /.well-known/transparency/checkpoint).' }),
  }),
  read_model: Type.Object({
    position: Type.Integer({ description: 'Position of the last event reflected in what this API serves.' }),
    updated_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    projections: Type.Array(ProjectionFreshness),
  }),
}, { title: 'ServiceStatus' });
export type ServiceStatus = Type.Static<typeof ServiceStatus>;
