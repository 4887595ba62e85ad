/** Response shapes of the spec's resources, built from the stored records. */
import type { EventRecord, InterviewRecord, JobDescription, ReportRecord } from './types';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export function reportSummary(r: ReportRecord, includeReference: boolean): Record<string, unknown> {
	const view: Record<string, unknown> = {
		id: r.id,
		createdAt: iso(r.createdAt),
		reportSystemVersion: r.reportSystemVersion,
		status: r.status,
		attemptId: r.attemptId,
		code: r.code,
		jobDescription: {
			id: r.jobDescription.id,
			title: r.jobDescription.title,
			company: r.jobDescription.company,
		},
		candidate: { name: r.candidate.name, currentRole: r.candidate.currentRole },
		result: r.result
			? {
					score: r.result.score,
					summary: r.result.summary,
					scoreReasoning: r.result.scoreReasoning,
				}
			: null,
	};
	if (includeReference) view.externalReference = r.externalReference;
	return view;
}

export function reportStatus(r: ReportRecord): Record<string, unknown> {
	return {
		id: r.id,
		status: r.status,
		attemptId: r.attemptId,
		code: r.code,
		reportSystemVersion: r.reportSystemVersion,
	};
}

export function reportResult(r: ReportRecord): Record<string, unknown> {
	return {
		schemaVersion: 1,
		reportId: r.id,
		attemptId: r.attemptId,
		reportSystemVersion: r.reportSystemVersion,
		resultRevision: r.resultRevision,
		publishedAt: iso(r.publishedAt),
		status: r.status,
		code: r.code,
		externalReference: r.externalReference,
		result: r.status === 'completed' ? r.result : null,
	};
}

export function interviewView(i: InterviewRecord): Record<string, unknown> {
	return {
		id: i.id,
		reportId: i.reportId,
		interviewSystemVersion: i.interviewSystemVersion,
		createdAt: iso(i.createdAt),
		expiresAt: iso(i.expiresAt),
		startedAt: iso(i.startedAt),
		completedAt: iso(i.completedAt),
		lifecycle: i.lifecycle,
		preparation: i.preparation,
		evaluation: i.evaluation,
		emailDelivery: i.emailDelivery,
		resultRevision: i.resultRevision,
	};
}

export function interviewResultView(i: InterviewRecord): Record<string, unknown> {
	return {
		...interviewView(i),
		schemaVersion: 1,
		result: i.evaluation === 'ready' ? i.result : null,
	};
}

export function jobView(j: JobDescription): Record<string, unknown> {
	return {
		id: j.id,
		title: j.title,
		company: j.company,
		team: j.team,
		location: j.location,
		level: j.level,
		employmentType: j.employmentType,
		status: j.status,
		description: j.description,
		revision: j.revision,
		createdAt: iso(j.createdAt),
		updatedAt: iso(j.updatedAt),
	};
}

/** The event envelope (spec "Events / Envelope"), as the feed and the webhook body carry it; a tombstone has no data. */
export function eventBody(e: EventRecord): Record<string, unknown> {
	const base = {
		id: e.id,
		type: e.type,
		schemaVersion: 1,
		occurredAt: new Date(e.occurredAt).toISOString(),
	};
	return e.tombstone ? base : { ...base, data: e.data ?? {} };
}
