/**
 * GET /api/public/verify/{serial}: authenticity and stolen status of a serial number. Known and unknown serials
 * take the same path (one lookup by id, one answer built), so timing does not tell them apart; no customer data
 * exists in the read model to leak.
 *
 * With `proof=index` the answer carries the proof of the serial's status in the serial index at the latest signed
 * checkpoint whose index this process holds, and that checkpoint (docs/audit.md, "Serial index proofs"): its status is
 * then the one proved there; the details stay the read model's (nothing of them is proved), none for a serial the
 * index does not hold. The index may stand before or after the read model. After, it may prove a theft the read model
 * has not applied yet: STOLEN is answered, at the position of the checkpoint's last leaf (refused where the log cannot
 * tell it). Before (a replica's index catching up after a start or a bulk), it may
 * prove a status the registry has left since: an AUTHENTIC or NOT_FOUND that the read model contradicts is the
 * answer a registry behind must never give, and a theft whose recovery the read model holds (its document has an
 * event after the checkpoint's last leaf) tells the owner of a recovered watch to call the police; both are refused
 * (503) until the index proves the registry's status.
 *
 * A serial whose stream holds an event of a type this version does not know (`unreadable_from`, set by
 * serials.projection.ts) is refused (503), proof or not: neither the read model nor the index can vouch for it.
 */
import Type from 'typebox';
import { canonicalId, SERIAL_AS_TYPED, type Language } from '../../../events/common.ts';
import type { SerialDoc, SerialsDoc } from '../../documents/documents.ts';
import { LangParam, rateLimitedResponse, unavailableResponse, validationResponse, ReadModelHeaders } from '../schemas/common.schema.ts';
import { Verification, type VerificationStatus } from '../schemas/verification.schema.ts';
import type { IndexProved } from './public-operation.ts';
import type { PublicOperationSpec } from './operation.ts';
import { ok, type PublicOperation } from './public-operation.ts';

const VerifyPath = Type.Object({
  serial: Type.String({ pattern: SERIAL_AS_TYPED, description: 'Serial number, case-insensitive.' }),
});

const VerifyQuery = Type.Object({
  lang: LangParam,
  proof: Type.Optional(Type.Literal('index', {
    description: '`index`: the answer carries the proof of the status in the serial index at a signed checkpoint, and that checkpoint; the status is the one proved there (`watchcat receipt verify` checks it offline): STOLEN when the index proves a theft the registry has not applied yet, stated at the position of the checkpoint\'s last leaf (`X-Read-Model-Position`). 503 while no checkpoint commits the index yet, or the log cannot tell where such a checkpoint ends, while the index proves a status the registry has left since (an AUTHENTIC or NOT_FOUND, or a theft since recovered: a moment, while it catches up), or while the index is not built (a transparency log projected in part before it, or holding a serial event its projector could not read, until the log is rebuilt).',
  })),
});
type VerifyQuery = Type.Static<typeof VerifyQuery>;

/** The index proves another status than the registry's (`handle`): a moment, until the index reaches the registry. */
const PROOF_BEHIND: Record<Language, string> = {
  en: 'The signed proof of this serial\'s latest status is not ready yet; try again shortly.',
  fr: 'La preuve signée du dernier statut de ce numéro de série n\'est pas encore prête ; réessayez dans un instant.',
};

const NO_PROOF: Record<Language, string> = {
  en: 'No signed checkpoint commits the serial index yet; try again shortly.',
  fr: 'Aucun point de contrôle signé n\'engage encore l\'index des numéros de série ; réessayez dans un instant.',
};

/** The index cannot be vouched for until an operator rebuilds the log: no proof is given, however long one waits. */
const INDEX_NOT_BUILT: Record<Language, string> = {
  en: 'The serial index is not built: the transparency log holds serial events without their index changes (projected in part before the index existed, or by a version that could not read them), and its signed checkpoints do not commit it until the log is rebuilt.',
  fr: 'L\'index des numéros de série n\'est pas construit : le journal de transparence contient des événements de numéros de série sans leurs changements d\'index (projeté en partie avant que l\'index existe, ou par une version qui ne pouvait pas les lire), et ses points de contrôle signés ne l\'engagent pas tant que le journal n\'est pas reconstruit.',
};
/** Seconds a request refused until an operator's rebuild (the index not built, a serial's unreadable change) is asked to wait, not a few looks. */
const NOT_BUILT_RETRY_AFTER_SECONDS = 300;

/**
 * The serial's stream holds an event of a type this version does not know (a newer writer's): whatever the registry
 * says of it could be contradicted by that event (a theft), until a version that reads it rebuilds the serials.
 */
const UNREADABLE_CHANGE: Record<Language, string> = {
  en: 'The registry holds a change of this serial number that this version of the service cannot read; it cannot be checked until the registry is updated.',
  fr: 'Le registre contient une modification de ce numéro de série que cette version du service ne sait pas lire ; il ne peut pas être vérifié tant que le registre n\'est pas mis à jour.',
};

const MESSAGES: Record<VerificationStatus, Record<Language, string>> = {
  AUTHENTIC: {
    en: 'This serial number is registered to an authentic watch of our manufacture.',
    fr: 'Ce numéro de série est enregistré pour une montre authentique de notre manufacture.',
  },
  STOLEN: {
    en: 'This watch has been reported stolen. Please contact the manufacture or the police.',
    fr: 'Cette montre a été déclarée volée. Veuillez contacter la manufacture ou la police.',
  },
  NOT_FOUND: {
    en: 'This serial number is not in our registry.',
    fr: 'Ce numéro de série ne figure pas dans notre registre.',
  },
};

/**
 * Where the index stands ahead of the registry, when a status it proves other than the registry's is that: a theft,
 * in a checkpoint counting every event the registry's document has seen (none, or none after its last leaf), and
 * whose last leaf the log can tell. The answer states that position, where the theft is so (the registry's own stands
 * before it, and a signed answer pins no tree newer than the position it states). A theft proved while the document
 * holds a later event (a recovery) is the index behind, as is any other status: undefined.
 */
function indexAheadAt(proved: VerificationStatus, doc: SerialDoc | null, through: number | undefined): number | undefined {
  return proved === 'STOLEN' && through !== undefined && (doc === null || doc.position <= through) ? through : undefined;
}

/** The statuses of a serial's document this version knows the meaning of. */
const KNOWN_STATUSES: ReadonlySet<unknown> = new Set<SerialDoc['status']>(['authentic', 'stolen']);

/**
 * Whether the serials read model read every event of the serial's stream (an unreadable one is marked:
 * `unreadable_from`) into a status this version knows: one a newer projector wrote (a rolling deploy that updates the
 * projectors first) may mean a theft as well as anything else.
 */
const readable = (doc: SerialsDoc | null): doc is SerialDoc | null =>
  doc === null || (doc.unreadable_from === undefined && KNOWN_STATUSES.has((doc as Partial<SerialDoc>).status));

const statusOf = (doc: SerialDoc | null): VerificationStatus => (doc === null ? 'NOT_FOUND' : doc.status === 'stolen' ? 'STOLEN' : 'AUTHENTIC');

function toVerification(serial: string, status: VerificationStatus, doc: SerialDoc | null, lang: Language, checkedAt: Date, proved?: IndexProved): Verification {
  return {
    serial,
    verification_status: status,
    stolen: status === 'STOLEN',
    details: doc === null || status === 'NOT_FOUND' ? null : {
      model: doc.model[lang], reference: doc.reference, collection: doc.collection, manufacture_year: doc.manufacture_year,
    },
    checked_at: checkedAt.toISOString(),
    message: MESSAGES[status][lang],
    lang,
    ...(proved && { proof: { checkpoint: proved.checkpoint, vrf_proof: proved.answer.vrf_proof, index_proof: proved.answer.index_proof } }),
  };
}

const verifySpec: PublicOperationSpec = {
  id: 'verifySerial',
  method: 'GET',
  path: '/api/public/verify/:serial',
  summary: 'Verify a serial number',
  summaryFr: 'Vérifier un numéro de série',
  description: 'Whether a serial number is registered (AUTHENTIC), reported stolen (STOLEN) or unknown (NOT_FOUND). No customer data. Limited to 10 requests per minute per IP.',
  tags: ['Verification'],
  params: { path: VerifyPath, query: VerifyQuery, header: ReadModelHeaders },
  responses: {
    '200': {
      description: 'The verification result',
      schema: Verification,
      headers: {
        'X-Data-Age': {
          description: 'How old the data of this answer is, in whole seconds rounded up: the time since this server saw the registry confirmed at the event store\'s head. An answer is refused (503) rather than given from data older than the verification\'s bound (5 s by default).',
          schema: Type.Integer({ minimum: 0 }),
        },
      },
    },
    '422': validationResponse,
    '429': rateLimitedResponse,
    '503': {
      ...unavailableResponse,
      description: `${unavailableResponse.description}. Also, with \`Retry-After: ${NOT_BUILT_RETRY_AFTER_SECONDS}\`, for a serial of which the registry holds a change this version of the service cannot read (an event of a type a newer version wrote), until a version that reads it rebuilds the registry, and with \`proof=index\` while the serial index is not built, until the transparency log is rebuilt`,
    },
  },
  cacheControl: 'no-store',
  verifyLimited: true,
};

export const verifyOperation: PublicOperation = {
  spec: verifySpec,
  reads: ['serials'],
  // A NOT_FOUND or AUTHENTIC from a registry behind is the one answer that must never be given.
  fresh: true,
  cacheable: false,
  timeField: 'checked_at',
  async handle(request, { readStore, now, serialIndex }) {
    const { lang, proof } = request.query as VerifyQuery;
    const serial = canonicalId(request.path['serial'] as string);
    const doc = await readStore.get<SerialsDoc>('serials', serial);
    // Where the serial's document stands: it may be ahead of the reading's stamp (a recovery written before its
    // checkpoint), and so may the change refused below, after which no answer of before it is given again.
    const dataAt = doc === null ? {} : { dataAt: doc.position };
    // Before any proof too: a proof at a checkpoint is of the index, which cannot hold that change either.
    if (!readable(doc)) return { status: 503, body: { detail: UNREADABLE_CHANGE[lang] }, retryAfter: NOT_BUILT_RETRY_AFTER_SECONDS, ...dataAt };
    if (proof !== 'index') return { ...ok(toVerification(serial, statusOf(doc), doc, lang, now)), ...dataAt };
    const proved = await serialIndex?.(serial);
    if (proved === undefined) return { status: 503, body: { detail: NO_PROOF[lang] }, retryAfter: 1 };
    if (proved === 'not built') return { status: 503, body: { detail: INDEX_NOT_BUILT[lang] }, retryAfter: NOT_BUILT_RETRY_AFTER_SECONDS };
    const { status } = proved.answer;
    const disagreed = status !== statusOf(doc);
    const ahead = disagreed ? indexAheadAt(status, doc, proved.through) : undefined;
    if (disagreed && ahead === undefined) return { status: 503, body: { detail: PROOF_BEHIND[lang] }, retryAfter: 1 };
    // Not kept: the next checkpoint's proof is asked for by the same URL while the serials stand still.
    return { ...ok(toVerification(serial, status, doc, lang, now, proved)), once: true, ...(ahead === undefined ? dataAt : { dataAt: ahead }) };
  },
};
