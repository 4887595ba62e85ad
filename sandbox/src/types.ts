/** In-memory state shapes of the sandbox. Everything here is plain data so it can be saved to `--data`. */

export type Scope =
	| 'reports:read'
	| 'analyses:write'
	| 'job-descriptions:read'
	| 'interviews:read'
	| 'interviews:write'
	| 'events:read';

export const ALL_SCOPES: Scope[] = [
	'reports:read',
	'analyses:write',
	'job-descriptions:read',
	'interviews:read',
	'interviews:write',
	'events:read',
];

export interface Workspace {
	id: string;
	createdAt: number;
	disabled: boolean;
	webhookSecret: string;
	/** Analyses that may still be admitted (each admission uses one). */
	analysisAllowance: number;
	/** Interview invitations that may still be admitted (invite and reinterview use one; resend none). */
	interviewAllowance: number;
	activeAnalysisLimit: number;
	pendingUploadLimit: number;
	/** Items of one batch that may be admitted at the same time (others wait for capacity). */
	batchCapacity: number;
	/** How long capacity-limited batch items may wait (sandbox clock). */
	admissionDeadlineMs: number;
	/** A quote older than this is QUOTE_STALE at admission; 0 (or absent, in older data files) = no age limit. */
	quoteMaxAgeMs: number;
	/** How long an idempotency receipt is kept (sandbox clock); 0 (or absent, in older data files) = for ever. */
	receiptLifetimeMs: number;
	/** Bumping this makes every earlier quote stale. */
	priceVersion: number;
	/**
	 * The price of an analysis and of an interview in credit units (absent: 100 and 250). A change makes earlier
	 * quotes stale (their fingerprint binds the price), as a price change of the real service does.
	 */
	analysisCreditUnits?: number;
	interviewCreditUnits?: number;
	/**
	 * How long an analysis takes from admission to its outcome, in real milliseconds (its two worker steps share it).
	 * Absent or 0: two steps of the sandbox's --worker-delay-ms. For measuring with analyses of realistic length.
	 */
	analysisDurationMs?: number;
	/** Keep emails queued (so interview.invitation_failed can be triggered). */
	holdEmails: boolean;
	/** Keep interview preparation queued (so interview.preparation_failed can be tested before ready). */
	holdPreparation: boolean;
	eventSeq: number;
	/** Highest event sequence erased by the 30-day retention; cursors at or before it get 410. */
	purgedThroughSeq: number;
}

export interface ApiKey {
	id: string;
	secret: string;
	workspaceId: string;
	scopes: Scope[];
	createdAt: number;
	expiresAt: number;
	revoked: boolean;
}

export interface JobDescription {
	id: string;
	workspaceId: string;
	title: string;
	company: string;
	team: string;
	location: string;
	level: string;
	employmentType: string;
	status: string;
	description: string;
	revision: string;
	createdAt: number;
	updatedAt: number;
}

export interface ExternalReference {
	source: string;
	id: string;
}

export type ReportStatus = 'queued' | 'processing' | 'completed' | 'requires_action' | 'failed';

const TERMINAL: ReadonlySet<ReportStatus> = new Set(['completed', 'requires_action', 'failed']);
export const isTerminal = (r: ReportRecord) => TERMINAL.has(r.status);

export interface Preparation {
	createdAt: number;
	expiresAt: number;
	/** Removed by DELETE or replaced by admission. */
	cancelled: boolean;
}

export interface ReportRecord {
	id: string;
	seq: number;
	workspaceId: string;
	createdAt: number;
	reportSystemVersion: string;
	status: ReportStatus;
	attemptId: string | null;
	code: string | null;
	fileName: string;
	fileSize: number;
	mimeType: string;
	/** sha256 of the uploaded bytes; null until the PUT succeeded. */
	fileSha256: string | null;
	/** Admitted at least once (the preparation is then consumed). */
	admitted: boolean;
	admissions: number;
	preparation: Preparation | null;
	jobDescription: {
		id: string | null;
		title: string | null;
		company: string | null;
		revision: string | null;
	};
	jobText: string;
	externalReference: ExternalReference | null;
	candidate: { name: string | null; currentRole: string | null };
	result: Record<string, unknown> | null;
	resultRevision: string | null;
	publishedAt: number | null;
	/** The worker's current run; a worker retry keeps it. */
	run: { attemptId: string; step: number; retried: boolean } | null;
}

export interface InterviewRecord {
	id: string;
	seq: number;
	workspaceId: string;
	reportId: string;
	interviewSystemVersion: string;
	createdAt: number;
	expiresAt: number;
	startedAt: number | null;
	completedAt: number | null;
	lifecycle: 'invited' | 'in_progress' | 'completed' | 'expired' | 'superseded';
	preparation: 'queued' | 'ready' | 'failed';
	evaluation: 'not_started' | 'processing' | 'ready' | 'failed';
	emailDelivery: 'not_requested' | 'queued' | 'sent' | 'failed';
	resultRevision: string | null;
	candidateEmail: string;
	sendEmail: boolean;
	invitationToken: string;
	result: Record<string, unknown> | null;
	/** Email deliveries queued but not yet sent (so invitation_failed can fail them). */
	pendingDeliveries: string[];
}

export interface BatchItem {
	itemKey: string;
	state: 'queued' | 'waiting_capacity' | 'succeeded' | 'failed';
	resourceId: string | null;
	attemptId: string | null;
	errorCode: string | null;
	upload?: UploadDescriptor;
	input: Record<string, unknown>;
}

export interface BatchRecord {
	id: string;
	workspaceId: string;
	kind: 'uploads' | 'analyses' | 'interviews';
	status: 'processing' | 'completed';
	createdAt: number;
	expiresAt: number;
	admissionDeadline: number;
	items: BatchItem[];
	batchJobDescription: unknown;
}

export interface UploadDescriptor {
	url: string;
	method: 'PUT';
	mimeType: string;
	sizeBytes: number;
	expiresInSeconds: number;
}

export interface EventRecord {
	seq: number;
	id: string;
	type: string;
	occurredAt: number;
	data: Record<string, unknown> | null;
	/** Internal associations for feed filters; kept after the body becomes a tombstone. */
	reportId: string | null;
	interviewId: string | null;
	tombstone: boolean;
}

export interface Receipt {
	/** The operation that made it (`POST /api/v1/uploads`): the key is the workspace's, another operation conflicts. */
	operation: string;
	bodyHash: string;
	status: number;
	body: unknown;
	createdAt: number;
	/** For invitations: the interview whose pending state a replay may recover. */
	interviewId?: string;
}

export interface MailItem {
	to: string;
	subject: string;
	body: string;
	interviewId: string;
	deliveryId: string;
	sentAt: string | null;
	state: 'queued' | 'sent' | 'failed';
}

export interface WebhookEndpoint {
	id: string;
	workspaceId: string;
	url: string;
	eventTypes: string[] | null;
	/** Newest first; two during rotation. */
	secrets: string[];
	mode: 'success' | 'retry' | 'timeout';
	paused: boolean;
	revision: number;
}

export interface DeliveryAttempt {
	at: string;
	status: number | null;
	durationMs: number;
	error: string | null;
}

export interface DeliveryRecord {
	deliveryId: string;
	workspaceId: string;
	endpointId: string;
	eventId: string;
	eventType: string;
	/** Exact body bytes sent (kept for replays). */
	body: string;
	eventOccurredAt: number;
	reportId: string | null;
	interviewId: string | null;
	state: 'pending' | 'succeeded' | 'failed' | 'cancelled';
	attemptCount: number;
	attempts: DeliveryAttempt[];
	outcome: string | null;
}

export interface InboxItem {
	receivedAt: string;
	headers: Record<string, string>;
	body: string;
	verified: boolean;
	reason: string | null;
}

export interface Counters {
	reportsCreated: number;
	preparationsCreated: number;
	attemptsCreated: number;
	interviewsCreated: number;
	emailsSent: number;
	batchesCreated: number;
	idempotentReplays: number;
	storagePuts: number;
	storageAuthorizationHeaders: number;
	webhookAuthorizationHeaders: number;
	/**
	 * High-water mark of the reports prepared (upload URL given) and not yet submitted for analysis (no attempt,
	 * in no analysis batch): how far a client's preparations ran ahead of its submissions, measured at every
	 * preparation (the only event that raises it), so no peak is missed.
	 */
	preparedAheadOfSubmissionMax: number;
	requests: Record<string, number>;
}

export const emptyCounters = (): Counters => ({
	reportsCreated: 0,
	preparationsCreated: 0,
	attemptsCreated: 0,
	interviewsCreated: 0,
	emailsSent: 0,
	batchesCreated: 0,
	idempotentReplays: 0,
	storagePuts: 0,
	storageAuthorizationHeaders: 0,
	webhookAuthorizationHeaders: 0,
	preparedAheadOfSubmissionMax: 0,
	requests: {},
});
