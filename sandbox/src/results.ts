/**
 * Deterministic synthetic results. The analysis outcome and score come from marker lines in the file
 * (`RA-SANDBOX-OUTCOME=`, `RA-SANDBOX-SCORE=`), read from PDF bytes or DOCX `word/document.xml`.
 */
import { unzipSync, strFromU8 } from 'fflate';
import { sha256Hex } from './canonical';

export type Outcome = 'completed' | 'requires_action' | 'failed' | 'retry_then_completed';

export function documentText(bytes: Buffer, mimeType: string): string {
	if (mimeType === 'application/pdf') return bytes.toString('latin1');
	try {
		const files = unzipSync(new Uint8Array(bytes), {
			filter: (f) => f.name === 'word/document.xml',
		});
		const xml = files['word/document.xml'];
		if (!xml) return '';
		return strFromU8(xml)
			.replace(/<\/w:p>/g, '\n')
			.replace(/<[^>]+>/g, '')
			.replace(/&lt;/g, '<')
			.replace(/&gt;/g, '>')
			.replace(/&amp;/g, '&');
	} catch {
		return '';
	}
}

export interface Reading {
	outcome: Outcome;
	score: number;
	candidateName: string | null;
	currentRole: string | null;
	contentHash: string;
}

export function readDocument(bytes: Buffer, mimeType: string): Reading {
	const text = documentText(bytes, mimeType);
	const contentHash = sha256Hex(bytes);
	const outcomeMatch =
		/RA-SANDBOX-OUTCOME=(completed|requires_action|failed|retry_then_completed)/.exec(text);
	const scoreMatch = /RA-SANDBOX-SCORE=(\d+(?:\.\d+)?)/.exec(text);
	let score = scoreMatch
		? Number(scoreMatch[1])
		: (parseInt(contentHash.slice(0, 8), 16) % 101) / 10;
	score = Math.min(10, Math.max(0, Math.round(score * 10) / 10));
	const name = /Candidate:\s*([^\n)]+?)\s*(?:\)|\n|$)/.exec(text)?.[1]?.trim() ?? null;
	const role = /Role:\s*([^\n)]+?)\s*(?:\)|\n|$)/.exec(text)?.[1]?.trim() ?? null;
	return {
		outcome: (outcomeMatch?.[1] as Outcome | undefined) ?? 'completed',
		score,
		candidateName: name,
		currentRole: role ?? (name ? 'Software Engineer' : null),
		contentHash,
	};
}

const rubricStatus = (s: number) =>
	s >= 7 ? 'meets' : s >= 4 ? 'partially_meets' : 'does_not_meet';

export function analysisResult(reading: Reading, jobTitle: string | null): Record<string, unknown> {
	const s = reading.score;
	const sub = (delta: number) => Math.min(10, Math.max(0, Math.round((s + delta) * 10) / 10));
	const role = jobTitle ?? 'the role';
	return {
		scoreScale: { minimum: 0, maximum: 10 },
		score: s,
		summary: `Synthetic sandbox analysis against ${role}: overall score ${s} of 10.`,
		scoreReasoning: `Deterministic sandbox score derived from the uploaded file (content ${reading.contentHash.slice(0, 12)}).`,
		humanReviewRecommendation: s >= 7 ? 'advance' : s >= 4 ? 'review' : 'decline_review',
		rubric: [
			{
				key: 'core_skills',
				label: 'Core skills',
				status: rubricStatus(sub(0.5)),
				score: sub(0.5),
				analysis: 'Skills listed in the resume compared with the job.',
				evidence: ['Skills section lists the required stack.'],
				gaps: s < 7 ? ['Depth in the main stack is not evidenced.'] : [],
			},
			{
				key: 'experience',
				label: 'Relevant experience',
				status: rubricStatus(s),
				score: s,
				analysis: 'Years and kind of experience.',
				evidence: ['Experience section states years in similar work.'],
				gaps: [],
			},
			{
				key: 'leadership',
				label: 'Leadership',
				status: rubricStatus(sub(-1)),
				score: sub(-1),
				analysis: 'Mentoring and ownership signals.',
				evidence: ['Mentoring is mentioned.'],
				gaps: s < 5 ? ['No ownership examples.'] : [],
			},
		],
		highlights: [
			{
				category: 'strength',
				label: 'Stack match',
				status: 'positive',
				summary: 'The resume names the technologies of the job.',
			},
			{
				category: 'risk',
				label: 'Unverified claims',
				status: 'neutral',
				summary: 'Claims are not independently verified in the sandbox.',
			},
		],
		followUpQuestions: {
			technical: ['Describe a system you designed end to end.'],
			clarification: ['Which of the listed projects did you lead?'],
			riskReview: ['Can you walk through the gap between your last two roles?'],
		},
		integrity: {
			riskLevel: 'low',
			summary: 'No integrity signals in synthetic data.',
			signals: [],
		},
		policyWarnings: [],
		ignoredCriteria: [],
		limitations:
			'Synthetic sandbox result: deterministic from the file content, not a real evaluation.',
	};
}

export function interviewResult(seed: string): Record<string, unknown> {
	const h = parseInt(sha256Hex(seed).slice(0, 8), 16);
	const base = 4 + (h % 60) / 10; // 4.0 .. 9.9
	const r = (d: number) => Math.min(10, Math.max(0, Math.round((base + d) * 10) / 10));
	return {
		decision: base >= 7 ? 'advance' : 'hold',
		recommendation: base >= 7 ? 'proceed_to_onsite' : 'review_manually',
		limitations: 'Synthetic sandbox evaluation; no voice or AI session ran.',
		summary: `Synthetic interview evaluation with readiness ${Math.round(base * 10)} of 100.`,
		coverage: { score: r(0.3), transcriptQuality: 'good' },
		integrity: { status: 'no_concerns', confidence: 'high' },
		requirements: [
			{
				requirement: 'Core technical skills',
				status: base >= 6 ? 'met' : 'partially_met',
				score: r(0),
				confidence: 80,
				coverage: 90,
				evidence: ['Explained a design trade-off clearly.'],
				gaps: [],
				finding: 'Solid fundamentals.',
			},
		],
		scores: {
			coreSkill: r(0),
			problemSolving: r(-0.5),
			communication: r(0.5),
			roleFit: r(0.2),
			readiness: Math.round(base * 10),
		},
		strengths: ['Clear communication'],
		concerns: base < 6 ? ['Limited depth in system design'] : [],
		evidence: [
			{
				dimension: 'problemSolving',
				reasoning: 'Broke the problem into steps.',
				supportingEvidence: ['Outlined a plan before coding.'],
			},
		],
	};
}
