/**
 * The import-circle check (`npm run lint:circles`): no module may reach itself again through its imports,
 * anywhere in nodes, credentials, sandbox, scripts, bench and test. Type-only imports count too
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
	],
	options: {
		doNotFollow: { path: 'node_modules' },
		exclude: { path: '^(node_modules|dist)/' },
		tsPreCompilationDeps: true,
		tsConfig: { fileName: 'tsconfig.dev.json' },
	},
};
