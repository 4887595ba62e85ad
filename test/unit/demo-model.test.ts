/**
 * The demo model `npm start` serves for the agent example (scripts/demo-model.ts): what it answers n8n's AI Agent for
 * the two sentences `npm start` prints, with the tools offered as n8n offers them (a tool behind a Human review takes
 * its own arguments under `toolParameters`), and that every text says it is a script.
 */
import { DEMO_MODEL_NOTE, demoModelReply } from '../../scripts/demo-model';
import type { ChatMessage, ChatRequest } from '../../scripts/chat-model-server';

const tools: ChatRequest['tools'] = [
	{
		type: 'function',
		function: { name: 'Read_Report', parameters: { properties: { reportId: {} } } },
	},
	{
		type: 'function',
		function: {
			name: 'Start_Analysis',
			parameters: { properties: { toolParameters: {}, hitlParameters: {} } },
		},
	},
];

const request = (text: string, after: ChatMessage[] = []): ChatRequest => ({
	model: 'llama3.1',
	messages: [
		{ role: 'system', content: 'You help a recruiter.' },
		{ role: 'user', content: text },
		...after,
	],
	tools,
});

const toolAnswer = (content: string): ChatMessage => ({ role: 'tool', content, tool_call_id: 'c' });

test('"read report rpt_…" calls Read Report with the report ID, then answers with its status, marked as the demo model', () => {
	expect(demoModelReply(request('read report rpt_abc123'))).toEqual({
		toolCall: { name: 'Read_Report', arguments: { reportId: 'rpt_abc123' } },
	});
	const done = demoModelReply(
		request('read report rpt_abc123', [
			{ role: 'assistant', content: null },
			toolAnswer(JSON.stringify({ id: 'rpt_abc123', status: 'completed', score: 8 })),
		]),
	);
	expect(done).toEqual({
		text: `${DEMO_MODEL_NOTE}\nRead_Report: id rpt_abc123, status completed, score 8`,
	});
});

test('"analyze report rpt_…" calls Start Analysis through the review (toolParameters), once', () => {
	expect(demoModelReply(request('Please analyze report rpt_x9'))).toEqual({
		toolCall: {
			name: 'Start_Analysis',
			arguments: { toolParameters: { reportId: 'rpt_x9' }, hitlParameters: {} },
		},
	});
	const declined = demoModelReply(
		request('Please analyze report rpt_x9', [toolAnswer('The user declined the tool call')]),
	);
	expect(declined).toEqual({
		text: `${DEMO_MODEL_NOTE}\nStart_Analysis: The user declined the tool call`,
	});
});

test('both words: Read Report first, then Start Analysis, then the text', () => {
	const asked = 'read report rpt_1 and analyze it';
	expect(demoModelReply(request(asked))).toEqual(
		expect.objectContaining({ toolCall: expect.objectContaining({ name: 'Read_Report' }) }),
	);
	expect(demoModelReply(request(asked, [toolAnswer('{"status":"queued"}')]))).toEqual(
		expect.objectContaining({ toolCall: expect.objectContaining({ name: 'Start_Analysis' }) }),
	);
	expect(
		demoModelReply(request(asked, [toolAnswer('{"status":"queued"}'), toolAnswer('[]')])),
	).toEqual({ text: expect.stringContaining(DEMO_MODEL_NOTE) });
});

test('anything else gets a line that says what the demo model understands, and no tool call', () => {
	for (const text of ['hello', 'read report 42', 'analyze everything'])
		expect(demoModelReply(request(text))).toEqual({
			text: expect.stringMatching(/scripted, not an AI\) I understand "read report rpt_…"/),
		});
});
