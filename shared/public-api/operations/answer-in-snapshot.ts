/**
 * The answer policy's reader (../answer-policy.ts), under the path the MCP tools and the tests of the read order
 * import it from: an answer read through one snapshot, judged and stamped from it, or refused.
 */
export {
  answerInSnapshot, REFUSAL_RETRY_AFTER_SECONDS, type Answerer, type ReadingEnv,
} from '../answer-policy.ts';
