/** bench/chart.svg, drawn here from one run's results (no external service): B1 wall times and B2 memory growth. */
import type { BenchResults } from './results';

function esc(s: string): string {
	return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export function chartSvg(r: BenchResults): string {
	const W = 900;
	const H = 470;
	const parts: string[] = [];
	parts.push(
		`<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="12">`,
	);
	parts.push(`<rect width="${W}" height="${H}" fill="#fff"/>`);
	const colors: Record<string, string> = {
		floor: '#999',
		floorOverlapped: '#ccc',
		many: '#17becf',
		batch: '#1f77b4',
		perItem: '#2ca02c',
		http: '#d62728',
		httpLoop: '#9467bd',
		baseline: '#bbb',
	};
	// Left: B1 wall time, log scale, grouped by N.
	const left = { x: 60, y: 40, w: 520, h: 330 };
	parts.push(
		`<text x="${left.x}" y="22" font-size="14" font-weight="bold">B1: wall time to analyze N resumes (log scale, ${r.settings.latencyMs} ms per call)</text>`,
	);
	if (r.b1) {
		const values = [
			...r.b1.runs.map((x) => x.medianMs),
			...r.b1.floors.map((f) => f.timeMs),
			...r.b1.floors.map((f) => f.overlappedMs ?? 0),
		].filter((v) => v > 0);
		const lo = Math.pow(10, Math.floor(Math.log10(Math.min(...values))));
		const hi = Math.pow(10, Math.ceil(Math.log10(Math.max(...values))));
		const y = (v: number) =>
			left.y +
			left.h -
			((Math.log10(v) - Math.log10(lo)) / (Math.log10(hi) - Math.log10(lo))) * left.h;
		for (let d = lo; d <= hi; d *= 10) {
			parts.push(
				`<line x1="${left.x}" x2="${left.x + left.w}" y1="${y(d)}" y2="${y(d)}" stroke="#eee"/>`,
			);
			parts.push(
				`<text x="${left.x - 6}" y="${y(d) + 4}" text-anchor="end">${d >= 1000 ? `${d / 1000} s` : `${d} ms`}</text>`,
			);
		}
		const groups = r.b1.floors.map((f) => f.n);
		const series = ['floor', 'floorOverlapped', 'many', 'batch', 'perItem', 'http', 'httpLoop'];
		const gw = left.w / groups.length;
		const bw = (gw - 30) / series.length;
		groups.forEach((n, gi) => {
			series.forEach((sname, si) => {
				const floor = r.b1!.floors.find((f) => f.n === n);
				const v =
					sname === 'floor'
						? floor?.timeMs
						: sname === 'floorOverlapped'
							? floor?.overlappedMs
							: r.b1!.runs.find((x) => x.n === n && x.variant === sname)?.medianMs;
				if (!v || !(v > 0)) return;
				const bx = left.x + gi * gw + 15 + si * bw;
				parts.push(
					`<rect x="${bx}" y="${y(v)}" width="${bw - 3}" height="${left.y + left.h - y(v)}" fill="${colors[sname]}"/>`,
				);
				parts.push(
					`<text x="${bx + (bw - 3) / 2}" y="${y(v) - 3}" text-anchor="middle" font-size="8">${v >= 1000 ? (v / 1000).toFixed(1) + 's' : Math.round(v)}</text>`,
				);
			});
			parts.push(
				`<text x="${left.x + gi * gw + gw / 2}" y="${left.y + left.h + 16}" text-anchor="middle">N = ${n}</text>`,
			);
		});
		parts.push(
			`<line x1="${left.x}" x2="${left.x + left.w}" y1="${left.y + left.h}" y2="${left.y + left.h}" stroke="#333"/>`,
		);
		const legend: Array<[string, string]> = [
			['floor', 'floor (phases in sequence)'],
			['floorOverlapped', 'floor (phases overlapped)'],
			['many', 'ours: Analyze Many'],
			['batch', 'ours: Upload Many → Start Many'],
			['perItem', 'ours: per item (Analyze Resume)'],
			['http', 'HTTP Request, all at once'],
			['httpLoop', 'HTTP Request, one at a time'],
		];
		legend.forEach(([k, text], i) => {
			const lx = left.x - 40 + (i % 4) * 190;
			const ly = H - 46 + Math.floor(i / 4) * 16;
			parts.push(`<rect x="${lx}" y="${ly}" width="10" height="10" fill="${colors[k]}"/>`);
			parts.push(`<text x="${lx + 14}" y="${ly + 9}" font-size="10">${esc(text)}</text>`);
		});
	}
	// Right: B2 growth.
	const right = { x: 660, y: 40, w: 200, h: 330 };
	parts.push(
		`<text x="${right.x - 30}" y="22" font-size="14" font-weight="bold">B2: peak RSS growth</text>`,
	);
	if (r.b2) {
		const max = Math.max(64, ...r.b2.map((b) => b.growthMb)) * 1.1;
		const y = (v: number) => right.y + right.h - (Math.max(0, v) / max) * right.h;
		parts.push(
			`<line x1="${right.x}" x2="${right.x + right.w}" y1="${y(64)}" y2="${y(64)}" stroke="#d62728" stroke-dasharray="4 3"/>`,
		);
		parts.push(
			`<text x="${right.x - 4}" y="${y(64) + 4}" text-anchor="end" fill="#d62728" font-size="10">64 MB target</text>`,
		);
		r.b2.forEach((b, i) => {
			const bx = right.x + 20 + i * 90;
			parts.push(
				`<rect x="${bx}" y="${y(b.growthMb)}" width="60" height="${right.y + right.h - y(b.growthMb)}" fill="${b.mode === 'filesystem' ? '#1f77b4' : '#ff7f0e'}"/>`,
			);
			parts.push(
				`<text x="${bx + 30}" y="${y(b.growthMb) - 4}" text-anchor="middle">${b.growthMb} MB</text>`,
			);
			parts.push(
				`<text x="${bx + 30}" y="${right.y + right.h + 16}" text-anchor="middle">${b.mode}</text>`,
			);
		});
		parts.push(
			`<text x="${right.x + right.w / 2}" y="${right.y + right.h + 32}" text-anchor="middle" font-size="10">${r.b2[0].files} files × 10 MB, Upload Resume</text>`,
		);
		parts.push(
			`<line x1="${right.x}" x2="${right.x + right.w}" y1="${right.y + right.h}" y2="${right.y + right.h}" stroke="#333"/>`,
		);
	}
	parts.push('</svg>');
	return parts.join('\n');
}
