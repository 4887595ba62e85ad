// n8n's date picker gives a local date-time without a zone: it is read in the workflow's timezone.

const LOCAL_DATE_TIME =
	/^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3})\d*)?)?)?$/;
const HAS_ZONE = /(?:Z|[+-]\d{2}:?\d{2})$/i;

function zoneOffsetMinutes(utcMs: number, timeZone: string): number {
	const parts = new Intl.DateTimeFormat('en-US', {
		timeZone,
		hourCycle: 'h23',
		year: 'numeric',
		month: '2-digit',
		day: '2-digit',
		hour: '2-digit',
		minute: '2-digit',
		second: '2-digit',
	}).formatToParts(new Date(utcMs));
	const part = (type: string) => Number(parts.find((p) => p.type === type)?.value);
	const wall = Date.UTC(
		part('year'),
		part('month') - 1,
		part('day'),
		part('hour'),
		part('minute'),
		part('second'),
	);
	return Math.round((wall - Math.floor(utcMs / 1000) * 1000) / 60000);
}

export function inTimezone(value: string, timeZone: string): string {
	const text = value.trim();
	if (HAS_ZONE.test(text)) return text;
	const m = LOCAL_DATE_TIME.exec(text);
	if (!m) return text;
	const [year, month, day, hour, minute, second] = [m[1], m[2], m[3], m[4], m[5], m[6]].map((v) =>
		Number(v ?? 0),
	);
	const millis = Number((m[7] ?? '0').padEnd(3, '0'));
	const wall = Date.UTC(year, month - 1, day, hour, minute, second, millis);
	const check = new Date(wall);
	if (
		check.getUTCFullYear() !== year ||
		check.getUTCMonth() !== month - 1 ||
		check.getUTCDate() !== day
	)
		return text;
	let zone = timeZone;
	try {
		zoneOffsetMinutes(wall, zone);
	} catch {
		zone = 'UTC';
	}
	// The offset at the wall time read as UTC, corrected once for a change of offset in between (DST).
	const first = wall - zoneOffsetMinutes(wall, zone) * 60000;
	const utc = wall - zoneOffsetMinutes(first, zone) * 60000;
	return new Date(utc).toISOString();
}
