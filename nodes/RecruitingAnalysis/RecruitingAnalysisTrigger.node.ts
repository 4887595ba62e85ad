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

import { optionsCollection } from './actions/common/descriptions';
import { recruitingAnalysisApiTest } from './methods/credentialTest';
import { markWebhookTrigger, unmarkWebhookTrigger } from './webhook/besideFeed';
import { admitEvent, DEFAULT_DEDUPE_CAPACITY, forgetScope, type SeenList } from './webhook/dedupe';
import { eventsField, eventsSubtitle, eventTypeMatches } from './events/eventTypes';
import { fetchEventResource, fetchResourceField } from './events/resource';
import { asObject, asString } from './transport/errors';
import {
	abandonUnlessAcknowledged,
	acknowledgeWhenStored,
	answer,
	inFlight,
	notReady,
	parseBody,
	RECHECKED_FAILURES,
	refuse,
	storedSeen,
} from './webhook/answers';
import {
	currentSecrets,
	forgetSecrets,
	recheckSecrets,
	secretProblem,
	secretsFrom,
} from './webhook/secrets';
import { RECEIVER_SIDE_FAILURES, verifyWebhook, type HeaderBag } from './webhook/verify';

const SIGNING_CREDENTIAL = 'recruitingAnalysisSigningSecretApi';
const REGISTRATION = 'registration';

function nodeScope(ctx: IHookFunctions | IWebhookFunctions): string {
	const node = ctx.getNode();
	return `${ctx.getWorkflow().id ?? ''}:${node.id ?? node.name}`;
}

// Without a usable secret the trigger would have to accept everything, so it refuses to activate.
async function assertSigningSecret(this: IHookFunctions): Promise<void> {
	const data = await this.getCredentials(SIGNING_CREDENTIAL).catch((error: Error) => {
		throw new NodeOperationError(
			this.getNode(),
			'A webhook signing secret credential is required',
			{ description: error.message },
		);
	});
	const problem = secretProblem(data);
	if (problem) {
		throw new NodeOperationError(this.getNode(), `${problem}; the trigger refuses to activate`, {
			description:
				'Paste the whsec_ signing secret of the webhook endpoint from the Recruiting Analysis application into the credential.',
		});
	}
}

export class RecruitingAnalysisTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Recruiting Analysis Trigger',
		name: 'recruitingAnalysisTrigger',
		icon: { light: 'file:recruitingAnalysis.svg', dark: 'file:recruitingAnalysis.dark.svg' },
		group: ['trigger'],
		// Version 2: n8n evaluates an expression per delivery to a version-1 start node (bench/REPORT.md, B5 profile).
		version: 2,
		subtitle: eventsSubtitle(),
		// n8n's nodes panel shows this description for the merged entry, so it begins with the action node's.
		description:
			'Analyze resumes and run candidate interviews with the Recruiting Analysis API. This trigger starts a workflow on its signed webhook events.',
		defaults: { name: 'Recruiting Analysis Trigger' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [
			// A literal name: n8n's community-package lint reads testedBy from here to find the credential's test.
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
				// Empty: n8n then answers with webhookResponse after it saved the static data (acknowledgeWhenStored).
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
			eventsField(
				'Event types that start the workflow. Other verified deliveries are acknowledged without running it. "All Events" also passes event types added to the API later.',
			),
			fetchResourceField,
			optionsCollection([
				{
					displayName: 'Remembered Event IDs',
					name: 'dedupeCapacity',
					type: 'number',
					typeOptions: { minValue: 1, maxValue: 10000 },
					default: DEFAULT_DEDUPE_CAPACITY,
					description:
						'How many recent event IDs are remembered to drop retried and replayed duplicates',
				},
			]),
		],
	};

	methods = {
		credentialTest: {
			recruitingAnalysisApiTest,
			// No endpoint can check a signing secret, so the test checks its whsec_ shape offline.
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

	// Endpoints are managed in the application, not the API (spec, Webhook receiver contract): nothing to register.
	webhookMethods = {
		default: {
			async checkExists(this: IHookFunctions): Promise<boolean> {
				await assertSigningSecret.call(this);
				// Read by a Feed Trigger in the same workflow, which then refuses to poll (webhook/besideFeed.ts).
				markWebhookTrigger(this.getWorkflowStaticData('global'), this.getNode());
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
				// The remembered ids stay, so that retries arriving after a reactivation are still recognised.
				delete this.getWorkflowStaticData('node')[REGISTRATION];
				unmarkWebhookTrigger(this.getWorkflowStaticData('global'), this.getNode());
				const scope = nodeScope(this);
				forgetScope(scope);
				forgetSecrets(`${scope}:`);
				return true;
			},
		},
	};

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		const req = this.getRequestObject();
		const res = this.getResponseObject();

		const arrivedAt = Date.now();
		const credential = this.getNode().credentials?.[SIGNING_CREDENTIAL];
		const scope = nodeScope(this);
		const secretScope = `${scope}:${credential?.id ?? credential?.name ?? ''}`;
		const readSecrets = async () =>
			secretsFrom((await this.getCredentials(SIGNING_CREDENTIAL)) as IDataObject);

		// headersDistinct keeps repeated headers as arrays (Node joins them with ", " in `headers`).
		const headers = (req.headersDistinct ?? req.headers) as HeaderBag;
		const verify = (secrets: string[]) =>
			verifyWebhook({ rawBody: req.rawBody as Uint8Array, headers, secrets, now: Date.now() });
		let verdict: ReturnType<typeof verifyWebhook>;
		try {
			const kept = await currentSecrets(secretScope, readSecrets);
			// Verify over the exact bytes received, never over a re-serialised body.
			if (req.rawBody === undefined) await req.readRawBody();
			verdict = verify(kept.secrets);
			if (!verdict.ok && RECHECKED_FAILURES.has(verdict.reason) && kept.readAt < arrivedAt) {
				verdict = verify(await recheckSecrets(secretScope, readSecrets, arrivedAt));
			}
		} catch (error) {
			return notReady(this, res, error);
		}
		if (!verdict.ok) {
			const { reason, message } = verdict;
			this.logger.warn(`Recruiting Analysis Trigger rejected a delivery: ${reason}`);
			return refuse(res, RECEIVER_SIDE_FAILURES.has(reason) ? 503 : 401, reason, message);
		}

		const event = asObject(parseBody(req.rawBody as Uint8Array));
		if (!event) return refuse(res, 400, 'BODY_NOT_JSON', 'The signed body is not a JSON object');

		if (!eventTypeMatches(event.type, this.getNodeParameter('events', ['*']) as string[])) {
			return {
				webhookResponse: { received: true, started: false, reason: 'event type not selected' },
			};
		}

		// Dedupe by the verified event id; a test URL runs on empty static data, so there is nothing to deduplicate.
		const eventId = asString(event.id) ?? verdict.webhookId;
		const staticData = this.getWorkflowStaticData('node');
		let acknowledge: ((stored: SeenList) => SeenList) | undefined;
		if (this.getMode() !== 'manual') {
			const capacity = this.getNodeParameter('options.dedupeCapacity', DEFAULT_DEDUPE_CAPACITY);
			const admission = admitEvent(scope, storedSeen(staticData).ids, eventId, capacity as number);
			if (admission.verdict === 'duplicate') {
				return answer(res, 200, { received: true, started: false, reason: 'duplicate event id' });
			}
			if (admission.verdict === 'inFlight') return inFlight(res);
			acknowledge = admission.acknowledge;
			abandonUnlessAcknowledged(res, admission.abandon);
		}
		res.set('cache-control', 'no-store');

		const output: IDataObject = {
			...event,
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

		return acknowledgeWhenStored(staticData, acknowledge, [[{ json: output }]]);
	}
}
