'use strict';
// The JSON Schemas of schema/ (plan, results, verdict), compiled once. Writers validate before
// writing and readers after reading, against the same file.
const fs = require('node:fs');
const path = require('node:path');
const Ajv2020 = require('ajv/dist/2020');

const SCHEMA_DIR = path.resolve(__dirname, '..', '..', 'schema');
const compiled = new Map();

function validator(kind) {
  if (!compiled.has(kind)) {
    const ajv = new Ajv2020({ allErrors: false, strict: false });
    const schema = JSON.parse(fs.readFileSync(path.join(SCHEMA_DIR, `${kind}.schema.json`), 'utf8'));
    compiled.set(kind, ajv.compile(schema));
  }
  return compiled.get(kind);
}

// Returns null when `data` is a valid perfgate.<kind>/v1 document, else one line naming the
// first offending key.
function schemaProblem(kind, data) {
  const validate = validator(kind);
  if (validate(data)) return null;
  const [e] = validate.errors;
  const where = e.instancePath ? e.instancePath.slice(1).replace(/\//g, '.') : '(top level)';
  const extra = e.params && e.params.additionalProperty ? ` '${e.params.additionalProperty}'` : '';
  return `${where}: ${e.message}${extra}`;
}

module.exports = { schemaProblem, SCHEMA_DIR };
