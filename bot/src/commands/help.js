'use strict';
// The /perf help reply (Markdown), generated from the command table the parser uses.
const { PREFIX, TYPES, OPTIONS, COMMANDS, usage } = require('./grammar');

function helpText() {
  const lines = [`**perfgate commands**: write one at the start of a line of a pull request comment, one command per comment.`, ''];
  for (const c of COMMANDS) lines.push(`- \`${usage(c)}\`: ${c.summary}`);
  lines.push('', 'Arguments:', '');
  const positionals = new Map();
  for (const c of COMMANDS) {
    for (const p of c.positionals) {
      if (!positionals.has(p.type)) positionals.set(p.type, []);
      if (!positionals.get(p.type).includes(p.name)) positionals.get(p.type).push(p.name);
    }
  }
  for (const [type, names] of positionals) {
    lines.push(`- ${names.map((n) => `\`<${n}>\``).join(', ')}: ${TYPES[type].describe}`);
  }
  for (const c of COMMANDS) if (c.rest) lines.push(`- \`<${c.rest.name}>\` (after \`${c.rest.separator}\`): ${c.rest.describe}`);
  for (const [key, o] of Object.entries(OPTIONS)) lines.push(`- \`${key}=${o.form}\`: ${o.describe}`);
  const open = COMMANDS.filter((c) => !c.needsWrite).map((c) => `\`${PREFIX} ${c.name}\``);
  lines.push('', `Anyone may ask for ${open.join(', ')}; every other command needs write access to the repository.`);
  return `${lines.join('\n')}\n`;
}

module.exports = { helpText };
