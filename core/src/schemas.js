'use strict';
// The JSON Schemas of schema/ (one per file that crosses a boundary), compiled once. Writers
// validate before writing and readers after reading, against the same file; the thresholds
// loader checks what it resolves against the same definitions, so a rule is written once.
const Ajv2020 = require('ajv/dist/2020');

// Required, not read from disk, so that a bundled action carries its schemas.
const SCHEMAS = {
  plan: require('../../schema/plan.schema.json'),
  results: require('../../schema/results.schema.json'),
  verdict: require('../../schema/verdict.schema.json'),
  'verdict-v1': require('../../schema/verdict-v1.schema.json'),
  chain: require('../../schema/chain.schema.json'),
  calibration: require('../../schema/calibration.schema.json'),
  builds: require('../../schema/builds.schema.json'),
  build: require('../../schema/build.schema.json'),
  'action-run': require('../../schema/action-run.schema.json'),
  bisect: require('../../schema/bisect.schema.json'),
  'change-points': require('../../schema/change-points.schema.json'),
  explain: require('../../schema/explain.schema.json'),
};

const ajv = new Ajv2020({ allErrors: true, strict: false, verbose: true });
for (const schema of Object.values(SCHEMAS)) ajv.addSchema(schema);
const compiled = new Map();

function validator(kind, def = null) {
  const key = def ? `${kind}#${def}` : kind;
  if (!compiled.has(key)) {
    if (!SCHEMAS[kind]) throw new Error(`no schema '${kind}'; expected one of: ${Object.keys(SCHEMAS).join(', ')}`);
    compiled.set(key, ajv.getSchema(def ? `${SCHEMAS[kind].$id}#/$defs/${def}` : SCHEMAS[kind].$id));
  }
  return compiled.get(key);
}

// Problems as {path: [key, …], message}, the most specific first. A schema explains a rule
// in the `description` of the subschema that makes it, and that explanation is the message.
function problems(validate, data) {
  if (validate(data)) return [];
  return validate.errors
    // The branches of an anyOf and the summary of a propertyNames failure repeat what the
    // anyOf itself or the failing name's own error says.
    .filter((e) => !/\/anyOf\/\d+\//.test(e.schemaPath) && e.keyword !== 'propertyNames')
    .map((e) => {
      const path = e.instancePath ? e.instancePath.slice(1).split('/').map((s) => (/^\d+$/.test(s) ? Number(s) : s.replace(/~1/g, '/').replace(/~0/g, '~'))) : [];
      if (e.propertyName !== undefined) path.push(e.propertyName);
      if (e.params && e.params.additionalProperty !== undefined) path.push(e.params.additionalProperty);
      return { path, message: describe(e) };
    })
    .sort((a, b) => b.path.length - a.path.length);
}

function describe(e) {
  const why = (schema) => (schema && typeof schema === 'object' && schema.description) || null;
  if (e.keyword === 'not') return why(e.schema) || 'is not allowed here';
  if (e.propertyName !== undefined) return `is not a valid name; expected ${why(e.parentSchema) || e.message}`;
  if (e.keyword === 'anyOf') return `is not valid; expected ${why(e.parentSchema) || 'one of the allowed forms'}`;
  if (e.keyword === 'enum') return `${JSON.stringify(e.data)} is not valid; expected one of: ${e.params.allowedValues.map(String).join(', ')}`;
  if (e.keyword === 'additionalProperties') return 'unknown key';
  if (e.keyword === 'required') return `missing key '${e.params.missingProperty}'`;
  const desc = why(e.parentSchema);
  // An object or a list is named by its path; printed whole it could be a whole document.
  const shown = e.data !== null && typeof e.data === 'object' ? '' : `${JSON.stringify(e.data)} `;
  return `${shown}${e.message}${desc ? `: ${desc}` : ''}`;
}

const joinPath = (path) => path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${p}`)).join('').replace(/^\./, '') || '(top level)';

// null when `data` is a valid perfgate.<kind>/v1 document, else one line naming the first
// offending key.
function schemaProblem(kind, data) {
  const [first] = problems(validator(kind), data);
  return first ? `${joinPath(first.path)}: ${first.message}` : null;
}

// Problems of one part of a document against a definition of its schema, e.g. the options of
// a catalogue entry against plan's $defs/scriptOptions; paths are relative to that part.
function fragmentProblems(kind, def, data) {
  return problems(validator(kind, def), data);
}

// The first problem as an Error: a document perfgate made itself that breaks its schema is a
// defect, never bad input.
function assertValid(kind, data, what = `a perfgate.${kind} document`) {
  const problem = schemaProblem(kind, data);
  if (problem) throw new Error(`internal: ${what} does not match schema/${kind}.schema.json: ${problem}`);
  return data;
}

module.exports = { schemaProblem, fragmentProblems, assertValid, SCHEMA_KINDS: Object.keys(SCHEMAS) };
