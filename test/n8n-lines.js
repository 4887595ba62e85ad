/**
 * The n8n lines the real-n8n suites run on, for the jest configurations: RA_N8N_VERSIONS = `2`, `1`, `both`
 * (the default) or `1,2`. Each selected line becomes a jest project named after it, whose tests read the line
 * from the global RA_N8N_LINE (test/e2e/helpers.ts `n8nLineUnderTest`). scripts/n8n-host/versions.ts reads
 * the same variable for `cli.ts ensure`.
 */
const ALL = ['2', '1'];

function selectedLines(value = process.env.RA_N8N_VERSIONS ?? 'both') {
	const text = value.trim();
	if (text === '' || text === 'both') return ALL;
	const lines = text.split(',').map((v) => v.trim().replace(/^v/, '').split('.')[0]);
	for (const line of lines) {
		if (!ALL.includes(line)) throw new Error(`RA_N8N_VERSIONS="${value}": use 2, 1, both or 1,2`);
	}
	return ALL.filter((line) => lines.includes(line));
}

/** What the real-n8n jest projects share: TypeScript through ts-jest, Node environment, files under `testMatch`. */
function realN8nProject(testMatch) {
	return {
		rootDir: require('node:path').join(__dirname, '..'),
		testEnvironment: 'node',
		transform: {
			'^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.dev.json', diagnostics: false }],
		},
		testMatch,
		testPathIgnorePatterns: ['/node_modules/', '/dist/'],
		moduleFileExtensions: ['ts', 'js', 'json'],
	};
}

/** One jest project per selected line: `base` and `perLine(line)` merged, named `n8n <line>.x`. */
function projectsFor(base, perLine = () => ({})) {
	return selectedLines().map((line) => ({
		...base,
		displayName: `n8n ${line}.x`,
		globals: { ...(base.globals ?? {}), RA_N8N_LINE: line },
		...perLine(line),
	}));
}

module.exports = { selectedLines, projectsFor, realN8nProject };
