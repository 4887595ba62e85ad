/**
 * Transport: the only code that talks HTTP. Operations import from here.
 *
 *   apiRequest / apiRequestAllItems   API calls through the credential (retries, errors, pagination)
 *   apiPath                           '/api/v1/reports/{}/status' + ids, each URI-encoded
 *   idempotencyKeyFor                 one key per logical write, stable across retries
 *   putResumeToStorage                the resume PUT to the signed URL, without credentials, streamed
 *   pollUntil                         Wait for Completion
 */
import type { IExecuteFunctions } from 'n8n-workflow';

import { validateIdempotencyKey } from '../validation';
import { deriveIdempotencyKey } from './idempotency';

export {
	apiErrorInfo,
	apiPath,
	apiRequest,
	apiRequestAllItems,
	CREDENTIAL_TYPE,
	REQUEST_TIMEOUT_MS,
	transportSettings,
} from './request';
export type { ApiContext, ApiErrorInfo, ApiRequestOptions } from './request';
export { putResumeToStorage, STORAGE_TIMEOUT_MS } from './storage';
export type { UploadTarget } from './storage';
export { pollUntil, pollDelayMs, type PollArgs } from './poll';
export { DEFAULT_RETRY_POLICY } from './retry';
export type { RetryPolicy } from './retry';
export { deriveIdempotencyKey, DERIVED_KEY_PREFIX } from './idempotency';
export { describeApiError, REASON_HINTS } from './errors';
export { keyEnvironmentProblem, resolveBaseUrl } from './environment';
export { recruitingAnalysisApiTest, testApiCredential } from './credentialTest';

/** A nonce per node run for executions that have no id (so two such runs never share keys). */
const runNonces = new WeakMap<object, string>();
let nonceCounter = 0;

/**
 * The Idempotency-Key of one logical write: the user's own key when given (checked against the spec's length and
 * pattern), else derived from execution id, node id, run index, item index and operation (sha256). `attempt`
 * marks a deliberate new submission within the same item, e.g. 'requote-1' after QUOTE_STALE.
 */
export function idempotencyKeyFor(
	this: IExecuteFunctions,
	itemIndex: number,
	operation: string,
	userKey?: string,
	attempt?: string,
): string {
	if (userKey !== undefined && userKey.trim() !== '') {
		const key = validateIdempotencyKey.call(this, userKey.trim(), itemIndex);
		return attempt ? `${key}:${attempt}`.slice(0, 128) : key;
	}
	let executionId = '';
	try {
		executionId = String(this.getExecutionId() ?? '');
	} catch {
		executionId = '';
	}
	if (executionId === '' || executionId === 'undefined') {
		let nonce = runNonces.get(this);
		if (!nonce) {
			nonce = `local-${Date.now()}-${++nonceCounter}`;
			runNonces.set(this, nonce);
		}
		executionId = nonce;
	}
	const runIndex = (this as unknown as { runIndex?: unknown }).runIndex;
	return deriveIdempotencyKey({
		executionId,
		nodeId: this.getNode().id ?? this.getNode().name,
		runIndex: typeof runIndex === 'number' ? runIndex : 0,
		itemIndex,
		operation,
		attempt,
	});
}
