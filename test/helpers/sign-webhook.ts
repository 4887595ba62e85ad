/** Signs a delivery as the Standard Webhooks sender does, for tests that play the sender. */
import { createHmac } from 'node:crypto';

import { decodeSigningSecret } from '../../nodes/RecruitingAnalysis/webhook/verify';

export function signWebhook(args: {
	secret: string;
	webhookId: string;
	timestamp: number;
	rawBody: Uint8Array;
}): string {
	const key = decodeSigningSecret(args.secret);
	if (!key) throw new TypeError('signWebhook: the secret is not whsec_<base64>');
	const digest = createHmac('sha256', key)
		.update(`${args.webhookId}.${args.timestamp}.`, 'utf8')
		.update(args.rawBody)
		.digest('base64');
	return `v1,${digest}`;
}
