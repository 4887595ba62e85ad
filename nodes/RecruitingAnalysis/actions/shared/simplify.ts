import type { IDataObject } from 'n8n-workflow';

/**
 * The Simplify view of a report result: identity, then score with its scale, summary, the human review
 * recommendation and the limitations (spec: read the scale and the limitations before showing a score).
 * A null result or a null score stays null: it means unmeasured, never zero.
 */
export function simplifyReportResult(full: IDataObject): IDataObject {
	const result = (full.result ?? null) as IDataObject | null;
	return {
		reportId: full.reportId,
		attemptId: full.attemptId ?? null,
		status: full.status,
		resultRevision: full.resultRevision ?? null,
		score: result ? (result.score ?? null) : null,
		scoreScale: result ? (result.scoreScale ?? null) : null,
		summary: result ? (result.summary ?? null) : null,
		humanReviewRecommendation: result ? (result.humanReviewRecommendation ?? null) : null,
		limitations: result ? (result.limitations ?? null) : null,
	};
}

/** The Simplify view of an interview result: lifecycle axes, decision, recommendation, summary, scores, limitations. */
export function simplifyInterviewResult(full: IDataObject): IDataObject {
	const result = (full.result ?? null) as IDataObject | null;
	return {
		interviewId: full.id,
		reportId: full.reportId,
		lifecycle: full.lifecycle,
		evaluation: full.evaluation,
		resultRevision: full.resultRevision ?? null,
		decision: result ? (result.decision ?? null) : null,
		recommendation: result ? (result.recommendation ?? null) : null,
		summary: result ? (result.summary ?? null) : null,
		scores: result ? (result.scores ?? null) : null,
		limitations: result ? (result.limitations ?? null) : null,
	};
}
