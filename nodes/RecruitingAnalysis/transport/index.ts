export {
	apiErrorInfo,
	apiPath,
	apiRequest,
	CREDENTIAL_TYPE,
	REQUEST_TIMEOUT_MS,
	transportSettings,
} from './request';
export type { ApiContext, ApiErrorInfo, ApiRequestOptions } from './request';
export { apiRequestAllItems, listPages, type ListPage, type PagesOptions } from './pages';
export { pollUntil, pollDelayMs, type PollArgs } from './poll';
export { DEFAULT_RETRY_POLICY } from './retry';
export type { RetryPolicy } from './retry';
export { binaryDigest, binaryHead, readBinaryFacts, type BinaryFacts } from './binary';
export { describeApiError, REASON_HINTS } from './errors';
export { keyEnvironmentProblem, resolveBaseUrl } from './environment';
