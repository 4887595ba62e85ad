const { rmSync } = require('node:fs');

/** jest.config.js's globalTeardown: removes the run's temporary folder (test/tmp-root-setup.js). */
module.exports = () => {
	const dir = process.env.RA_TEST_TMP;
	if (dir) rmSync(dir, { recursive: true, force: true });
};
