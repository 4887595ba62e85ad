/** Report date filters: a value without a zone is read in the workflow's timezone; a date alone is that day's start. */
import { inTimezone } from '../../../../nodes/RecruitingAnalysis/actions/report/dates';

describe('inTimezone', () => {
	it('a date alone is the start of that day in the zone', () => {
		expect(inTimezone('2026-01-15', 'Europe/Berlin')).toBe('2026-01-14T23:00:00.000Z');
		expect(inTimezone('2026-07-15', 'Europe/Berlin')).toBe('2026-07-14T22:00:00.000Z');
		expect(inTimezone('2026-01-15', 'America/New_York')).toBe('2026-01-15T05:00:00.000Z');
		expect(inTimezone('2026-01-15', 'UTC')).toBe('2026-01-15T00:00:00.000Z');
	});

	it("a date-time without a zone (as n8n's date picker gives it) is a wall-clock time in the zone", () => {
		expect(inTimezone('2026-01-15T09:30:00', 'Asia/Kolkata')).toBe('2026-01-15T04:00:00.000Z');
		expect(inTimezone('2026-01-15T09:30', 'America/Los_Angeles')).toBe('2026-01-15T17:30:00.000Z');
		expect(inTimezone('2026-01-15 09:30:15.250', 'UTC')).toBe('2026-01-15T09:30:15.250Z');
	});

	it('across daylight-saving changes the offset of that date is used', () => {
		// Europe/Berlin switches to summer time on 2026-03-29 at 02:00 local.
		expect(inTimezone('2026-03-29T01:00:00', 'Europe/Berlin')).toBe('2026-03-29T00:00:00.000Z');
		expect(inTimezone('2026-03-29T04:00:00', 'Europe/Berlin')).toBe('2026-03-29T02:00:00.000Z');
	});

	it('a day whose midnight a daylight-saving change skips starts at its first instant, not the day before', () => {
		// America/Sao_Paulo went from 00:00 to 01:00 on 2018-11-04.
		expect(inTimezone('2018-11-04', 'America/Sao_Paulo')).toBe('2018-11-04T03:00:00.000Z');
	});

	it('a timezone n8n does not know reads the value in UTC', () => {
		expect(inTimezone('2026-01-15T09:30', 'Not/A_Zone')).toBe('2026-01-15T09:30:00.000Z');
	});

	it('a value with Z or an offset is kept as it is', () => {
		expect(inTimezone('2026-01-15T09:00:00Z', 'Europe/Berlin')).toBe('2026-01-15T09:00:00Z');
		expect(inTimezone('2026-01-15T09:00:00+05:30', 'Europe/Berlin')).toBe(
			'2026-01-15T09:00:00+05:30',
		);
	});

	it('anything else is returned unchanged, for the validation to name the field and the rule', () => {
		expect(inTimezone('yesterday', 'Europe/Berlin')).toBe('yesterday');
		expect(inTimezone('2026-02-30', 'Europe/Berlin')).toBe('2026-02-30');
		expect(inTimezone('2026-01-15T09:60', 'Europe/Berlin')).toBe('2026-01-15T09:60');
	});
});
