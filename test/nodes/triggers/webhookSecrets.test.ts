/**
 * The webhook trigger keeps the signing secrets it read (nodes/RecruitingAnalysis/webhook/secrets.ts) and reads the
 * credential again when a delivery's signature matches none of them: served by the engine harness's webhook host
 * (n8n-core WebhookContext, n8n's credential decryption) over real HTTP.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { ICredentialDataDecryptedObject, IDataObject } from 'n8n-workflow';
import { request } from 'undici';

import { RecruitingAnalysisTrigger } from '../../../nodes/RecruitingAnalysis/RecruitingAnalysisTrigger.node';
import { startWebhookHost, type WebhookHost } from '../../helpers/n8n-engine';
import { credentialTypes, signedHeaders } from './helpers';

const SIGNING = 'recruitingAnalysisSigningSecretApi';
const newSecret = () => `whsec_${randomBytes(24).toString('base64')}`;
const hosts: WebhookHost[] = [];
afterEach(async () => {
	for (const host of hosts.splice(0)) await host.close();
});

async function startHost(
	secrets: { secret: string; previousSecret?: string },
	typeVersion?: number,
): Promise<WebhookHost> {
	const host = await startWebhookHost({
		nodeType: new RecruitingAnalysisTrigger(),
		credentialTypes,
		credentials: { [SIGNING]: { previousSecret: '', ...secrets } },
		parameters: { events: ['*'] },
		staticData: {},
		...(typeVersion === undefined ? {} : { typeVersion }),
	});
	hosts.push(host);
	return host;
}

async function deliver(host: WebhookHost, secret: string) {
	const raw = JSON.stringify({
		id: `evt_${randomUUID()}`,
		type: 'report.completed',
		schemaVersion: 1,
		occurredAt: new Date().toISOString(),
		data: { reportId: 'rpt_1', attemptId: 'att_1', status: 'completed', code: null },
	});
	const res = await request(host.url, {
		method: 'POST',
		headers: signedHeaders(secret, raw),
		body: raw,
	});
	const text = await res.body.text();
	return { status: res.statusCode, body: text ? (JSON.parse(text) as IDataObject) : {} };
}

function signingCredential(host: WebhookHost) {
	const reference = host.loaded.node.credentials?.[SIGNING];
	if (!reference?.id) throw new Error('the trigger has no signing credential');
	const helper = host.loaded.credentialsHelper;
	return {
		reads: () => helper.reads.get(reference.id!) ?? 0,
		edit: async (data: ICredentialDataDecryptedObject) =>
			await helper.updateCredentials(reference, SIGNING, data),
	};
}

describe('signing secrets kept between deliveries', () => {
	it('twenty deliveries read the credential once', async () => {
		const secret = newSecret();
		const host = await startHost({ secret });
		const credential = signingCredential(host);
		const before = credential.reads();
		for (let i = 0; i < 10; i++) expect((await deliver(host, secret)).status).toBe(200);
		const together = await Promise.all(Array.from({ length: 10 }, () => deliver(host, secret)));
		expect(together.map((r) => r.status)).toEqual(Array(10).fill(200));
		expect(credential.reads() - before).toBe(1);
		expect(host.executions).toHaveLength(20);
	});

	it('a secret edited into the credential verifies the first delivery signed with it; the old one is then refused', async () => {
		const oldSecret = newSecret();
		const host = await startHost({ secret: oldSecret });
		const credential = signingCredential(host);
		expect((await deliver(host, oldSecret)).status).toBe(200);
		const rotated = newSecret();
		await credential.edit({ secret: rotated, previousSecret: '' });
		const readsBefore = credential.reads();

		const first = await deliver(host, rotated);
		expect(first.status).toBe(200);
		expect(credential.reads() - readsBefore).toBe(1);

		const stale = await deliver(host, oldSecret);
		expect(stale.status).toBe(401);
		expect((stale.body.error as IDataObject).reason).toBe('SIGNATURE_MISMATCH');
		expect(host.executions).toHaveLength(2);
	});

	it('a credential fixed after it held no usable secret is used at the next delivery', async () => {
		const secret = newSecret();
		const host = await startHost({ secret });
		const credential = signingCredential(host);
		expect((await deliver(host, secret)).status).toBe(200);
		await credential.edit({ secret: 'whsec_garbled', previousSecret: '' });
		const broken = await deliver(host, secret);
		// The kept secret still verifies (an edit takes effect within the reuse time or at the first mismatch).
		expect(broken.status).toBe(200);

		const other = newSecret();
		const refused = await deliver(host, other);
		expect(refused.status).toBe(503);
		expect((refused.body.error as IDataObject).reason).toBe('INVALID_SECRET');

		await credential.edit({ secret: other, previousSecret: '' });
		expect((await deliver(host, other)).status).toBe(200);
	});

	it('a forged delivery reads the credential again, and still gets 401', async () => {
		const secret = newSecret();
		const host = await startHost({ secret });
		const credential = signingCredential(host);
		expect((await deliver(host, secret)).status).toBe(200);
		const before = credential.reads();
		const forged = await deliver(host, newSecret());
		expect(forged.status).toBe(401);
		expect(credential.reads() - before).toBe(1);
		expect(host.executions).toHaveLength(1);
	});

	it('version 1 of the trigger verifies and starts the workflow as version 2 does', async () => {
		const secret = newSecret();
		const v1 = await startHost({ secret }, 1);
		const v2 = await startHost({ secret });
		expect(v1.loaded.node.typeVersion).toBe(1);
		expect(v2.loaded.node.typeVersion).toBe(2);
		for (const host of [v1, v2]) {
			expect((await deliver(host, secret)).status).toBe(200);
			expect((await deliver(host, newSecret())).status).toBe(401);
		}
		const keys = (host: WebhookHost) =>
			Object.keys(host.executions[0].workflowData[0][0].json).sort();
		expect(keys(v1)).toEqual(keys(v2));
	});
});
