const path = require('path');
const { task, src, dest, parallel } = require('gulp');

// n8n resolves icons and codex files (*.node.json) relative to the compiled node/credential file,
// so they are copied next to the .js files in dist/.
function copyNodeAssets() {
	return src(path.resolve('nodes', '**', '*.{png,svg,json}'), { encoding: false }).pipe(dest(path.resolve('dist', 'nodes')));
}

function copyCredentialAssets() {
	return src(path.resolve('credentials', '**', '*.{png,svg}'), { encoding: false }).pipe(dest(path.resolve('dist', 'credentials')));
}

// The package entry lives inside dist/ so that `npm pack` ships only dist, README, LICENSE and package.json.
function copyEntry() {
	return src(path.resolve('index.js')).pipe(dest(path.resolve('dist')));
}

task('build:icons', parallel(copyNodeAssets, copyCredentialAssets, copyEntry));
