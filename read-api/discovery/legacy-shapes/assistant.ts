/** Section 2.4 "Assistant shapes": documented for completeness, used by no public operation. */
import Type from 'typebox';

const ChatMessage = Type.Object({ role: Type.String(), content: Type.String() }, { title: 'ChatMessage' });
const ChatRequest = Type.Object({ messages: Type.Array(ChatMessage) }, { title: 'ChatRequest' });
/** The seed does not show what the answers hold. */
const AiAnswersPayload = Type.Object({ answers: Type.Array(Type.Unknown()) }, { title: 'AiAnswersPayload' });
const AiPrediagRequest = Type.Object({ all_answers: Type.Array(Type.Unknown()) }, { title: 'AiPrediagRequest' });
const AiRound2Request = Type.Object({ first_answers: Type.Array(Type.Unknown()) }, { title: 'AiRound2Request' });

export const assistantShapes = [ChatMessage, ChatRequest, AiAnswersPayload, AiPrediagRequest, AiRound2Request];
