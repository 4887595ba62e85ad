import { tryToParseDateTime } from 'n8n-workflow';

// n8n's date picker gives a local date-time without a zone: it is read in the workflow's timezone.
const LOCAL_DATE_TIME = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)?$/;

function wallClockToUtc(text: string, timeZone: string): string | undefined {
	try {
		const local = tryToParseDateTime(text.replace(' ', 'T'), timeZone);
		// n8n-workflow's parser falls back to Date.parse, which rolls 2026-02-30 over into March: refused here.
		if (local.toISODate() !== text.slice(0, 10)) return undefined;
		return local.toUTC().toISO() ?? undefined;
	} catch {
		return undefined;
	}
}

export function inTimezone(value: string | undefined, timeZone: string): string | undefined {
	if (value === undefined) return value;
	const text = value.trim();
	if (!LOCAL_DATE_TIME.test(text)) return text;
	return wallClockToUtc(text, timeZone) ?? wallClockToUtc(text, 'UTC') ?? text;
}
