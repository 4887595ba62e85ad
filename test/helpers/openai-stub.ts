/**
 * The OpenAI-compatible model the real-n8n AI Agent tests play: the loopback chat-completions server of
 * scripts/chat-model-server.ts (the one `npm start` serves its demo model with), answering with the test's `reply`.
 */
import { startChatModelServer, type ChatModelServer } from '../../scripts/chat-model-server';

export {
	messageText,
	type ChatMessage,
	type ChatReply,
	type ChatRequest,
} from '../../scripts/chat-model-server';

export type OpenAiStub = ChatModelServer;

/** Starts the stub on 127.0.0.1 (a free port). */
export const startOpenAiStub: typeof startChatModelServer = (reply) => startChatModelServer(reply);
