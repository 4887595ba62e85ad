/**
 * The import-circle check (`npm run lint:circles`): no module may reach itself again through its imports,
 * anywhere in nodes, credentials, sandbox, scripts, bench and test; and the action node's folders import downwards
 * only (docs/architecture.md). Type-only imports count too
 * (tsPreCompilationDeps), because a circle of types is still two files that cannot be understood apart.
 * @type {import('dependency-cruiser').IConfiguration}
 */
module.exports = {
	forbidden: [
		{
			name: 'no-circular',
			comment: 'An import circle: move what both sides need into a module of its own.',
			severity: 'error',
			from: {},
			to: { circular: true },
		},
		// The action node's layers (docs/architecture.md): imports run down, node classes → actions → engine →
		// writes → transport and validation.
		{
			name: 'engine-below-actions',
			comment:
				'engine/ runs every operation: it never imports actions/ (the run object it hands down lives in engine/run.ts).',
			severity: 'error',
			from: { path: '^nodes/RecruitingAnalysis/engine/' },
			to: { path: '^nodes/RecruitingAnalysis/actions/' },
		},
		{
			name: 'writes-below-engine',
			comment:
				'writes/ is exactly once in one place: it never imports engine/ or actions/ (it names what it keeps per run as WriteRun in spending.ts; one exception left: identity.ts reads the write choice through the parameter readers of actions/common, params.ts and checks.ts).',
			severity: 'error',
			from: { path: '^nodes/RecruitingAnalysis/writes/' },
			to: {
				path: '^nodes/RecruitingAnalysis/(engine|actions)/',
				pathNot: '^nodes/RecruitingAnalysis/actions/common/(params|checks)[.]ts$',
			},
		},
		{
			name: 'transport-and-validation-at-the-bottom',
			comment: 'transport/ and validation/ import nothing of the layers above them.',
			severity: 'error',
			from: { path: '^nodes/RecruitingAnalysis/(transport|validation)/' },
			to: { path: '^nodes/RecruitingAnalysis/(engine|writes|actions)/' },
		},
	],
	options: {
		doNotFollow: { path: 'node_modules' },
		exclude: { path: '^(node_modules|dist)/' },
		tsPreCompilationDeps: true,
		tsConfig: { fileName: 'tsconfig.dev.json' },
	},
};
