// n8n loads the nodes and credentials listed in package.json's "n8n" section; this file only marks the package entry.
module.exports = {};
