const { TestEnvironment } = require('jest-environment-node');

/**
 * The test environment of the Prism project (jest.prism.config.js): Node's, plus Stoplight Prism's packages loaded
 * once per jest worker and the contract's operations parsed once per worker, for test/helpers/prism.ts
 * (`globalThis.__raPrism`). Jest gives every test file a module registry of its own, so a file that imported Prism
 * itself would load it again: about two seconds of CPU per file, for some thirty files. This module is loaded by the
 * worker itself, once. The proxies, their findings and their checks stay per file (test/helpers/prism.ts); a file
 * of another jest project gets the same loader through `prismPackages`.
 */
let shared;

function prism() {
	if (!shared) {
		const { getHttpOperationsFromSpec } = require('@stoplight/prism-http');
		const validator = require('@stoplight/prism-http/dist/validator');
		const parsed = new Map();
		shared = {
			createLogger: require('@stoplight/prism-core').createLogger,
			createServer: require('@stoplight/prism-http-server').createServer,
			validateInput: validator.validateInput,
			validateOutput: validator.validateOutput,
			/** The operations of an OpenAPI file, parsed on first use in this worker. */
			operations(file) {
				if (!parsed.has(file)) parsed.set(file, getHttpOperationsFromSpec(file));
				return parsed.get(file);
			},
		};
	}
	return shared;
}

module.exports = class PrismEnvironment extends TestEnvironment {
	constructor(config, context) {
		super(config, context);
		this.global.__raPrism = prism();
	}
};
/** The same packages for a jest project without this environment: loaded in that file's own registry. */
module.exports.prismPackages = prism;
