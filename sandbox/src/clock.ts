/**
 * The controllable sandbox clock. Expiries (upload URL, preparation, interviews, sandbox data), event
 * retention and cursor age read this clock; `advance` moves it forward without waiting.
 * Worker steps and webhook retries run on real (scaled) timers instead, see context.ts Timers and webhooks.ts.
 */
export class SandboxClock {
	private offsetMs = 0;

	now(): number {
		return Date.now() + this.offsetMs;
	}

	iso(ms = this.now()): string {
		return new Date(ms).toISOString();
	}

	advance(ms: number): number {
		this.offsetMs += ms;
		return this.now();
	}

	get offset(): number {
		return this.offsetMs;
	}

	set offset(ms: number) {
		this.offsetMs = ms;
	}
}

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;
