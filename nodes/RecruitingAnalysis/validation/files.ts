import { NodeOperationError } from 'n8n-workflow';

import { check, type ValidationContext } from './failures';
import {
	DOCX_MIME_TYPE,
	extensionOf,
	MIME_BY_EXTENSION,
	PDF_MIME_TYPE,
	resumeFileSchema,
	type ResumeFile,
} from './rules';

export const GENERIC_MIME_TYPES = new Set([
	'',
	'application/octet-stream',
	'binary/octet-stream',
	'application/binary',
	'application/unknown',
	'application/download',
	'application/force-download',
	'application/x-download',
	'application/zip',
	'application/x-zip',
	'application/x-zip-compressed',
	'text/plain',
]);

export function normaliseMimeType(mimeType: string | undefined): string {
	return (mimeType ?? '').split(';')[0].trim().toLowerCase();
}

export function inferResumeMimeType(fileName: string, mimeType: string | undefined): string {
	const declared = normaliseMimeType(mimeType);
	if (!GENERIC_MIME_TYPES.has(declared)) return declared;
	const ext = extensionOf(fileName);
	return ext ? MIME_BY_EXTENSION[ext] : declared;
}

export function validateResumeFile(
	this: ValidationContext,
	file: { fileName?: string; fileSize?: number; mimeType?: string },
	itemIndex: number,
): ResumeFile {
	const fileName = file.fileName;
	const mimeType =
		typeof fileName === 'string' ? inferResumeMimeType(fileName, file.mimeType) : file.mimeType;
	return check(this, resumeFileSchema, { fileName, fileSize: file.fileSize, mimeType }, itemIndex);
}

export function contentMatchesMimeType(head: Uint8Array, mimeType: string): boolean {
	if (mimeType === PDF_MIME_TYPE) {
		return head.length >= 5 && String.fromCharCode(...head.subarray(0, 5)) === '%PDF-';
	}
	if (mimeType === DOCX_MIME_TYPE) {
		return (
			head.length >= 4 &&
			head[0] === 0x50 &&
			head[1] === 0x4b &&
			head[2] === 0x03 &&
			head[3] === 0x04
		);
	}
	return false;
}

function sniffContent(head: Uint8Array): 'pdf' | 'zip' | 'html' | 'unknown' {
	const text = String.fromCharCode(...head.subarray(0, 8));
	if (text.startsWith('%PDF-')) return 'pdf';
	if (
		head.length >= 4 &&
		head[0] === 0x50 &&
		head[1] === 0x4b &&
		head[2] === 0x03 &&
		head[3] === 0x04
	)
		return 'zip';
	if (/^\s*</.test(text)) return 'html';
	return 'unknown';
}

export function validateResumeContent(
	this: ValidationContext,
	head: Uint8Array,
	file: { fileName: string; mimeType: string },
	itemIndex: number,
): void {
	if (contentMatchesMimeType(head, file.mimeType)) return;
	const isPdf = file.mimeType === PDF_MIME_TYPE;
	const expected = isPdf ? 'a PDF (starting with %PDF-)' : 'a DOCX (a ZIP archive)';
	const found = sniffContent(head);
	const stem = file.fileName.replace(/\.[^.]*$/, '');
	let message = `"Input Binary Field" content must agree with its type: ${file.fileName} is not ${expected}`;
	let advice =
		'The file extension, the declared MIME type and the file content must agree. Check that the binary ' +
		'property holds the resume itself and not, for example, an HTML error page.';
	if (isPdf && found === 'zip') {
		// A Word document (DOCX is a ZIP archive) saved or renamed with .pdf: the commonest case in a folder of resumes.
		message = `"Input Binary Field" content must agree with its type: ${file.fileName} is a DOCX or other ZIP file, not a PDF. If it is a Word document, rename it ${stem}.docx`;
		advice = `Rename the file to ${stem}.docx (or use the File Name option) if it is a Word document; other ZIP archives cannot be analyzed.`;
	} else if (!isPdf && found === 'pdf') {
		message = `"Input Binary Field" content must agree with its type: ${file.fileName} is a PDF, not a DOCX. Rename it ${stem}.pdf`;
		advice = `Rename the file to ${stem}.pdf (or use the File Name option).`;
	} else if (found === 'html') {
		message = `"Input Binary Field" content must agree with its type: ${file.fileName} holds HTML (a web page), not ${expected}`;
		advice =
			'A download returned a web page (often a login or error page) instead of the resume: check the step that fetched the file.';
	}
	throw new NodeOperationError(this.getNode(), message, {
		itemIndex,
		description: `${advice} Nothing was uploaded.`,
	});
}
