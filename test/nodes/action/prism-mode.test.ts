/**
 * The action node's tests run twice in `npm test`: against the sandbox directly (jest) and through Stoplight Prism's
 * validating proxy (jest -c jest.prism.config.js, RA_PRISM=1). This file proves which one is in effect: in Prism
 * mode the node's credential points at the proxy and its requests reach the sandbox through it.
 */
import { prismTraffic } from '../../helpers/prism';
import {
	counters,
	credentialsFor,
	jsonOf,
	runNode,
	useSandboxWorkspace,
	type Workspace,
} from './helpers';

const viaPrism = process.env.RA_PRISM === '1';
let ws: Workspace;

useSandboxWorkspace((started) => ({ ws } = started));

test(`the node's API requests go ${viaPrism ? 'through Prism' : 'straight to the sandbox'}`, async () => {
	const credential = credentialsFor(ws).recruitingAnalysisApi;
	expect(credential.baseUrl === ws.baseUrl).toBe(!viaPrism);
	const before = prismTraffic.requests;
	const [job] = jsonOf(
		await runNode(ws, {
			resource: 'jobDescription',
			operation: 'get',
			jobDescriptionId: ws.jobDescriptionId,
		}),
	);
	expect(job.id).toBe(ws.jobDescriptionId);
	expect((await counters(ws)).requests['GET /api/v1/job-descriptions/{id}']).toBe(1);
	expect(prismTraffic.requests > before).toBe(viaPrism);
});
