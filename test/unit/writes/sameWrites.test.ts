/** Merges made visible (writes/identity.ts recordWrite) and the file reference that names an upload (writes/identity.ts). */
import type { IExecuteFunctions } from 'n8n-workflow';

import {
	contentIdentity,
	FILE_REFERENCE_SOURCE,
	fileReference,
	recordWrite,
} from '../../../nodes/RecruitingAnalysis/writes/identity';
import { Run } from '../../../nodes/RecruitingAnalysis/engine/run';
import {
	EXTERNAL_REFERENCE_SOURCE_PATTERN,
	MAX_EXTERNAL_REFERENCE_ID_LENGTH,
} from '../../../nodes/RecruitingAnalysis/validation';

describe('the same write twice in one run', () => {
	it('marks every later item with the number of the first, as the editor counts', () => {
		const run = new Run({} as IExecuteFunctions);
		expect(recordWrite(run, 'key-a', 0)).toBeUndefined();
		expect(recordWrite(run, 'key-a', 0)).toBeUndefined();
		expect(recordWrite(run, 'key-b', 1)).toBeUndefined();
		expect(recordWrite(run, 'key-a', 4)).toBe(1);
		expect(recordWrite(new Run({} as IExecuteFunctions), 'key-a', 4)).toBeUndefined();
	});
});

describe('the file reference of an upload', () => {
	const input = {
		fileName: 'ada.pdf',
		fileSize: 10,
		mimeType: 'application/pdf',
		jobDescription: { kind: 'existing', id: 'jd_1' },
	};

	it("meets the spec's external reference rules and names the same upload the same way", () => {
		const reference = fileReference(contentIdentity(input, 'a'.repeat(64)));
		expect(reference.source).toBe(FILE_REFERENCE_SOURCE);
		expect(reference.source).toMatch(EXTERNAL_REFERENCE_SOURCE_PATTERN);
		expect(reference.id.length).toBeLessThanOrEqual(MAX_EXTERNAL_REFERENCE_ID_LENGTH);
		expect(fileReference(contentIdentity({ ...input }, 'a'.repeat(64)))).toEqual(reference);
	});

	it('differs for another file, another job, or a label that asks for a separate report', () => {
		const reference = fileReference(contentIdentity(input, 'a'.repeat(64)));
		expect(fileReference(contentIdentity(input, 'b'.repeat(64)))).not.toEqual(reference);
		expect(
			fileReference(
				contentIdentity(
					{ ...input, jobDescription: { kind: 'existing', id: 'jd_2' } },
					'a'.repeat(64),
				),
			),
		).not.toEqual(reference);
		expect(fileReference(contentIdentity(input, 'a'.repeat(64)), 'separate')).not.toEqual(
			reference,
		);
	});

	it('is the same for the same bytes under another name (resume (1).pdf, download.pdf)', () => {
		const reference = fileReference(contentIdentity(input, 'a'.repeat(64)));
		for (const fileName of ['resume (1).pdf', 'download.pdf'])
			expect(fileReference(contentIdentity({ ...input, fileName }, 'a'.repeat(64)))).toEqual(
				reference,
			);
	});
});
