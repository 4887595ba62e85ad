/** The sandbox state: plain records keyed by id, plus resume bytes, saved to `--data` when asked. */
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import type {
	ApiKey,
	BatchRecord,
	Counters,
	DeliveryRecord,
	EventRecord,
	InboxItem,
	InterviewRecord,
	JobDescription,
	MailItem,
	Receipt,
	ReportRecord,
	WebhookEndpoint,
	Workspace,
} from './types';
import { emptyCounters } from './types';

export const newId = (prefix: string) => `${prefix}${randomBytes(12).toString('hex')}`;
export const newUuid = () => randomUUID();

interface Persisted {
	workspaces: Record<string, Workspace>;
	keys: Record<string, ApiKey>;
	jobs: Record<string, JobDescription>;
	reports: Record<string, ReportRecord>;
	interviews: Record<string, InterviewRecord>;
	batches: Record<string, BatchRecord>;
	events: Record<string, EventRecord[]>;
	receipts: Record<string, Receipt>;
	mail: Record<string, MailItem[]>;
	endpoints: Record<string, WebhookEndpoint>;
	deliveries: Record<string, DeliveryRecord>;
	inbox: Record<string, InboxItem[]>;
	counters: Record<string, Counters>;
	quotesIssuedAt: Record<string, number>;
	seq: number;
	signingKey: string;
	clockOffset: number;
	seed: SeedInfo | null;
}

export interface SeedInfo {
	apiKey: string;
	webhookSecret: string;
	jobDescriptionId: string;
	workspaceId: string;
}

export class Store implements Persisted {
	workspaces: Record<string, Workspace> = {};
	/** By key secret. */
	keys: Record<string, ApiKey> = {};
	jobs: Record<string, JobDescription> = {};
	reports: Record<string, ReportRecord> = {};
	interviews: Record<string, InterviewRecord> = {};
	batches: Record<string, BatchRecord> = {};
	/** Per workspace, in durable publication order. */
	events: Record<string, EventRecord[]> = {};
	/** Idempotency receipts by `${workspace}|${key}` (a key is the workspace's, whatever the operation); kept across reset. */
	receipts: Record<string, Receipt> = {};
	mail: Record<string, MailItem[]> = {};
	endpoints: Record<string, WebhookEndpoint> = {};
	deliveries: Record<string, DeliveryRecord> = {};
	inbox: Record<string, InboxItem[]> = {};
	counters: Record<string, Counters> = {};
	/** When each quote was issued, by `${workspace}|${fingerprint}` (for the workspace's quoteMaxAgeMs). */
	quotesIssuedAt: Record<string, number> = {};
	/** Monotonic sequence for stable ordering of records created in the same millisecond. */
	seq = 0;
	/** HMAC key for storage URLs and cursors. */
	signingKey = randomBytes(32).toString('hex');
	clockOffset = 0;
	/** The seeded workspace printed by the CLI. */
	seed: SeedInfo | null = null;
	/** Uploaded resume bytes by report id. */
	files = new Map<string, Buffer>();

	nextSeq(): number {
		this.seq += 1;
		return this.seq;
	}

	countersOf(workspaceId: string): Counters {
		this.counters[workspaceId] ??= emptyCounters();
		return this.counters[workspaceId];
	}

	eventsOf(workspaceId: string): EventRecord[] {
		this.events[workspaceId] ??= [];
		return this.events[workspaceId];
	}

	save(file: string): void {
		const data: Persisted & { files: Record<string, string> } = {
			workspaces: this.workspaces,
			keys: this.keys,
			jobs: this.jobs,
			reports: this.reports,
			interviews: this.interviews,
			batches: this.batches,
			events: this.events,
			receipts: this.receipts,
			mail: this.mail,
			endpoints: this.endpoints,
			deliveries: this.deliveries,
			inbox: this.inbox,
			counters: this.counters,
			quotesIssuedAt: this.quotesIssuedAt,
			seq: this.seq,
			signingKey: this.signingKey,
			clockOffset: this.clockOffset,
			seed: this.seed,
			files: Object.fromEntries([...this.files].map(([id, buf]) => [id, buf.toString('base64')])),
		};
		writeFileSync(`${file}.tmp`, JSON.stringify(data));
		renameSync(`${file}.tmp`, file);
	}

	static load(file: string): Store {
		const store = new Store();
		if (!existsSync(file)) return store;
		const data = JSON.parse(readFileSync(file, 'utf8')) as Persisted & {
			files?: Record<string, string>;
		};
		const { files, ...rest } = data;
		Object.assign(store, rest);
		// Data files of older sandboxes keyed receipts by `${workspace}|${operation}|${key}`: the same receipts, keyed by workspace and key.
		for (const [id, receipt] of Object.entries(store.receipts)) {
			const parts = id.split('|');
			if (parts.length !== 3) continue;
			delete store.receipts[id];
			const current = store.receipts[`${parts[0]}|${parts[2]}`];
			if (!current || current.createdAt > receipt.createdAt)
				store.receipts[`${parts[0]}|${parts[2]}`] = { ...receipt, operation: parts[1] };
		}
		for (const [id, b64] of Object.entries(files ?? {}))
			store.files.set(id, Buffer.from(b64, 'base64'));
		return store;
	}
}
