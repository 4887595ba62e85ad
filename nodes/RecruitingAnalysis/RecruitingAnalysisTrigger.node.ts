import type {
	ICredentialsDecrypted,
	ICredentialTestFunctions,
	IDataObject,
	IHookFunctions,
	INodeCredentialTestResult,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';

import { recruitingAnalysisApiTest } from './methods/credentialTest';
import { readSeenIds, rememberAcrossRequests, DEFAULT_DEDUPE_CAPACITY } from './webhook/dedupe';
import { EVENT_TYPE_OPTIONS, eventTypeMatches } from './events/eventTypes';
import { fetchEventResource, fetchResourceField } from './events/fetchResource';
import type { EventEnvelope } from './events/resource';
import {
	isWellFormedSigningSecret,
	RECEIVER_SIDE_FAILURES,
	verifyWebhook,
	type HeaderBag,
	type VerifyFailure,
} from './webhook/verify';

const SIGNING_CREDENTIAL = 'recruitingAnalysisSigningSecretApi';
/** Static-data keys (node scope). */
const SEEN_IDS = 'seenEventIds';
const REGISTRATION = 'registration';

/** The configured secrets, current first (verification reports which one matched). */
function secretsFrom(data: IDataObject | undefined): string[] {
	return [data?.secret, data?.previousSecret]
		.filter((s): s is string => typeof s === 'string')
		.map((s) => s.trim())
		.filter((s) => s !== '');
}

/** Why a credential cannot verify deliveries, or undefined when it can. */
function secretProblem(data: IDataObject | undefined): string | undefined {
	const current = typeof data?.secret === 'string' ? data.secret.trim() : '';
	const previous = typeof data?.previousSecret === 'string' ? data.previousSecret.trim() : '';
	if (current === '') return 'No signing secret is configured';
	if (!isWellFormedSigningSecret(current)) {
		return 'The signing secret is not whsec_ followed by base64 of at least 16 bytes';
	}
	if (previous !== '' && !isWellFormedSigningSecret(previous)) {
		return 'The previous signing secret is not whsec_ followed by base64 of at least 16 bytes';
	}
	return undefined;
}

/**
 * Activation guard: a trigger without a usable secret would have to accept everything, so it refuses
 * to activate instead.
 */
async function assertSigningSecret(this: IHookFunctions): Promise<void> {
	let data: IDataObject | undefined;
	try {
		data = (await this.getCredentials(SIGNING_CREDENTIAL)) as IDataObject;
	} catch (error) {
		throw new NodeOperationError(
			this.getNode(),
			'A webhook signing secret credential is required',
			{
				description: (error as Error).message,
			},
		);
	}
	const problem = secretProblem(data);
	if (problem) {
		throw new NodeOperationError(this.getNode(), `${problem}; the trigger refuses to activate`, {
			description:
				'Paste the whsec_ signing secret of the webhook endpoint from the Recruiting Analysis application into the credential.',
		});
	}
}

type WebhookResponse = ReturnType<IWebhookFunctions['getResponseObject']>;

/** Answers through `res` (no execution starts) and tells n8n that the node has answered. */
function answer(res: WebhookResponse, status: number, body: IDataObject): IWebhookResponseData {
	res.set('cache-control', 'no-store');
	res.status(status).json(body);
	return { noWebhookResponse: true };
}

/**
 * A failure on this side (the secret cannot be read or used, the raw body is missing): 503, which the service
 * retries for about a day and a half (api-spec "Webhook receiver contract" 5 and 6), so the event arrives once
 * the problem is fixed. A 401 would end the delivery for good.
 */
function unavailable(res: WebhookResponse, reason: string, message: string): IWebhookResponseData {
	return answer(res, 503, { error: { code: 'SERVICE_UNAVAILABLE', reason, message } });
}

const UTF8_BOM = [0xef, 0xbb, 0xbf];

/** The signed body as JSON; a leading UTF-8 byte order mark is tolerated (the signature covers it as received). */
function parseBody(raw: Uint8Array): unknown {
	const bytes = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
	const start = UTF8_BOM.every((b, i) => bytes[i] === b) ? UTF8_BOM.length : 0;
	try {
		return JSON.parse(bytes.subarray(start).toString('utf8'));
	} catch {
		return undefined;
	}
}

/**
 * Starts the workflow and lets n8n answer 200 only after it has written the remembered event id to its database,
 * so that a replay after a restart, or on another webhook process, is recognised (acknowledged means remembered).
 *
 * n8n writes a webhook workflow's changed static data inside its response callback, just before it answers
 * (packages/cli `LiveWebhooks.executeWebhook`). On n8n 1.x the callback runs before the execution is created; on
 * 2.x after it, and creating the execution wraps the same static data in a new `Workflow`, which clears its
 * "changed" mark. n8n reads the node's `webhookResponse` right before calling that callback (it is the answer's
 * body when the description's `responseData` is empty), so reading it marks the ids changed again: on both lines
 * the ids are written, then the answer goes out.
 */
function acknowledgeWhenStored(
	staticData: IDataObject,
	rememberedIds: string[] | undefined,
	workflowData: IWebhookResponseData['workflowData'],
): IWebhookResponseData {
	const result: IWebhookResponseData = { workflowData };
	Object.defineProperty(result, 'webhookResponse', {
		enumerable: true,
		get: () => {
			if (rememberedIds) staticData[SEEN_IDS] = rememberedIds;
			return { received: true, started: true };
		},
	});
	return result;
}

function headerBag(req: { headers: HeaderBag; headersDistinct?: HeaderBag }): HeaderBag {
	// headersDistinct keeps repeated headers as arrays (Node joins them with ", " in `headers`).
	return req.headersDistinct ?? req.headers;
}

export class RecruitingAnalysisTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Recruiting Analysis Trigger',
		name: 'recruitingAnalysisTrigger',
		icon: { light: 'file:recruitingAnalysis.svg', dark: 'file:recruitingAnalysis.dark.svg' },
		group: ['trigger'],
		version: 1,
		subtitle: '={{($parameter["events"] || []).join(", ")}}',
		description: 'Starts the workflow on signed Recruiting Analysis webhook events',
		defaults: { name: 'Recruiting Analysis Trigger' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [
			{
				name: 'recruitingAnalysisSigningSecretApi',
				required: true,
				testedBy: 'recruitingAnalysisSigningSecretTest',
			},
			{
				name: 'recruitingAnalysisApi',
				required: true,
				testedBy: 'recruitingAnalysisApiTest',
				displayOptions: { show: { fetchResource: [true] } },
			},
		],
		webhooks: [
			{
				name: 'default',
				httpMethod: 'POST',
				responseMode: 'onReceived',
				// Empty, so that n8n answers with the node's `webhookResponse` and reads it just before it saves the
				// static data and answers (see `acknowledgeWhenStored`).
				responseData: '',
				path: 'webhook',
			},
		],
		properties: [
			{
				displayName:
					"Register this node's Production URL as a webhook endpoint in the Recruiting Analysis application (Settings > Developer > Webhooks), choose its event subscriptions there, and put the endpoint's whsec_ signing secret into the credential. Deliveries that fail signature verification are answered 401 and never start the workflow; while the secret here cannot be used, deliveries are answered 503 so that the service retries them.",
				name: 'setupNotice',
				type: 'notice',
				default: '',
			},
			{
				displayName: 'Events',
				name: 'events',
				type: 'multiOptions',
				required: true,
				default: ['*'],
				description:
					'Event types that start the workflow. Other verified deliveries are acknowledged without running it. "All Events" also passes event types added to the API later.',
				options: [
					{
						name: 'All Events (Including Future Types)',
						value: '*',
						description: 'Every event, including types this node does not know yet',
					},
					...EVENT_TYPE_OPTIONS,
				],
			},
			fetchResourceField,
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				placeholder: 'Add Option',
				default: {},
				options: [
					{
						displayName: 'Remembered Event IDs',
						name: 'dedupeCapacity',
						type: 'number',
						typeOptions: { minValue: 1, maxValue: 10000 },
						default: DEFAULT_DEDUPE_CAPACITY,
						description:
							'How many recent event IDs are remembered to drop retried and replayed duplicates',
					},
				],
			},
		],
	};

	methods = {
		credentialTest: {
			recruitingAnalysisApiTest,
			/**
			 * There is no endpoint that could check a signing secret, so the test checks what can be checked
			 * offline: both secrets have the documented whsec_<base64> shape.
			 */
			async recruitingAnalysisSigningSecretTest(
				this: ICredentialTestFunctions,
				credential: ICredentialsDecrypted,
			): Promise<INodeCredentialTestResult> {
				const problem = secretProblem(credential.data);
				if (problem) return { status: 'Error', message: problem };
				return {
					status: 'OK',
					message:
						"The secret has the whsec_ format. Send a test event from the application to confirm that it is the endpoint's secret.",
				};
			},
		},
	};

	/**
	 * Endpoints, their URL and their subscriptions are managed in the Recruiting Analysis application,
	 * not through the API (api-spec "Webhook receiver contract" 1), so nothing is registered remotely.
	 * The methods check the signing secret (activation fails without one) and record which URL the user
	 * has to register, so the stored state never claims a remote registration that did not happen.
	 */
	webhookMethods = {
		default: {
			async checkExists(this: IHookFunctions): Promise<boolean> {
				await assertSigningSecret.call(this);
				const registration = this.getWorkflowStaticData('node')[REGISTRATION] as
					IDataObject | undefined;
				return registration?.url === this.getNodeWebhookUrl('default');
			},
			async create(this: IHookFunctions): Promise<boolean> {
				await assertSigningSecret.call(this);
				const url = this.getNodeWebhookUrl('default');
				this.getWorkflowStaticData('node')[REGISTRATION] = {
					url,
					managedIn: 'Recruiting Analysis application (Settings > Developer > Webhooks)',
					remoteRegistration: false,
				};
				this.logger.info(
					`Recruiting Analysis Trigger listens on ${url}; register this URL as a webhook endpoint in the Recruiting Analysis application`,
				);
				return true;
			},
			async delete(this: IHookFunctions): Promise<boolean> {
				// Nothing to remove remotely; the endpoint stays registered in the application until the
				// user deletes or pauses it there. The remembered event IDs are kept so that retries that
				// arrive after a reactivation are still recognised.
				delete this.getWorkflowStaticData('node')[REGISTRATION];
				return true;
			},
		},
	};

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		const req = this.getRequestObject();
		const res = this.getResponseObject();

		let secrets: string[] = [];
		let rawBody: unknown;
		try {
			secrets = secretsFrom((await this.getCredentials(SIGNING_CREDENTIAL)) as IDataObject);
			// Verify over the exact bytes received; never over a re-serialised body.
			if (req.rawBody === undefined) await req.readRawBody();
			rawBody = req.rawBody;
		} catch (error) {
			this.logger.warn(
				`Recruiting Analysis Trigger cannot verify deliveries: ${(error as Error).message}`,
			);
			return unavailable(
				res,
				'RECEIVER_NOT_READY',
				'The receiver cannot verify deliveries right now; retry later',
			);
		}

		const verdict = verifyWebhook({
			rawBody: rawBody as Uint8Array,
			headers: headerBag(req as unknown as { headers: HeaderBag; headersDistinct?: HeaderBag }),
			secrets,
			now: Date.now(),
		});
		if (!verdict.ok) {
			const failure: VerifyFailure = verdict;
			this.logger.warn(`Recruiting Analysis Trigger rejected a delivery: ${failure.reason}`);
			if (RECEIVER_SIDE_FAILURES.has(failure.reason))
				return unavailable(res, failure.reason, failure.message);
			return answer(res, 401, {
				error: { code: 'UNAUTHORIZED', reason: failure.reason, message: failure.message },
			});
		}

		const parsed = parseBody(rawBody as Uint8Array);
		if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
			return answer(res, 400, {
				error: {
					code: 'BAD_REQUEST',
					reason: 'BODY_NOT_JSON',
					message: 'The signed body is not a JSON object',
				},
			});
		}
		const event = parsed as EventEnvelope;

		const eventType = typeof event.type === 'string' ? event.type : '';
		const selected = this.getNodeParameter('events', ['*']) as string[];
		if (!eventTypeMatches(eventType, selected)) {
			return {
				webhookResponse: { received: true, started: false, reason: 'event type not selected' },
			};
		}

		// Dedupe by the verified event id (retries and replays keep it); the delivery id is the fallback for a body
		// without one. A test URL serves one request per listening session, on a workflow n8n builds with empty
		// static data: nothing to deduplicate there, and nothing kept from one session to the next.
		const eventId = typeof event.id === 'string' && event.id !== '' ? event.id : verdict.webhookId;
		const staticData = this.getWorkflowStaticData('node');
		let rememberedIds: string[] | undefined;
		if (this.getMode() !== 'manual') {
			const options = this.getNodeParameter('options', {}) as IDataObject;
			const capacity =
				typeof options.dedupeCapacity === 'number' ? options.dedupeCapacity : undefined;
			const node = this.getNode();
			const scope = `${this.getWorkflow().id ?? ''}:${node.id ?? node.name}`;
			const remembered = rememberAcrossRequests(
				scope,
				readSeenIds(staticData[SEEN_IDS]),
				eventId,
				capacity,
			);
			if (remembered.duplicate) {
				// Nothing new to store: answered at once through `res`.
				return answer(res, 200, { received: true, started: false, reason: 'duplicate event id' });
			}
			rememberedIds = remembered.ids;
			staticData[SEEN_IDS] = rememberedIds;
		}
		res.set('cache-control', 'no-store');

		const output: IDataObject = {
			...(event as IDataObject),
			delivery: {
				webhookId: verdict.webhookId,
				timestamp: new Date(verdict.timestamp * 1000).toISOString(),
				timestampSeconds: verdict.timestamp,
				signedWith: verdict.secretIndex === 0 ? 'current secret' : 'previous secret',
			},
		};

		if (this.getNodeParameter('fetchResource', false) as boolean) {
			// A failed read is delivered with the event, never instead of it.
			Object.assign(output, await fetchEventResource(this, event));
		}

		return acknowledgeWhenStored(staticData, rememberedIds, [[{ json: output }]]);
	}
}
