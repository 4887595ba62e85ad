// Two applicants with byte-identical files never silently become one report: the later item says so.
import type { WriteRun } from './spending';

// The engine checks every item in order before the first write (engine/run.ts), so the first is the lowest item.
export function sameWriteAs(run: WriteRun, key: string, itemIndex: number): number | undefined {
	const writes = run.firstItemOfWrite;
	const first = writes.get(key);
	if (first === undefined || first === itemIndex) {
		writes.set(key, itemIndex);
		return undefined;
	}
	return first + 1;
}
