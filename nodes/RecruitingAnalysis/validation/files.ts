/**
 * Resume files: the MIME type n8n gives a binary, the type the file name implies, and whether the file's first bytes
 * are what its type says (a PDF, a DOCX zip), checked before the file is uploaded.
 */
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

// ---------------------------------------------------------------------------------------------------------------
// Named helpers the node calls
// ---------------------------------------------------------------------------------------------------------------

/** MIME types n8n (or a browser, or a mail client) gives when it does not know better. */
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

/** Lowercased MIME type without parameters ('application/pdf; charset=binary' -> 'application/pdf'). */
export function normaliseMimeType(mimeType: string | undefined): string {
	return (mimeType ?? '').split(';')[0].trim().toLowerCase();
}

/** The resume MIME type: the declared one, or the one the extension implies when the declared one is generic. */
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

/** The first bytes of a PDF ("%PDF-") or of a DOCX (a ZIP: "PK\x03\x04"). */
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

/** What the first bytes of a file show it to be, for the advice when its name or type says otherwise. */
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
