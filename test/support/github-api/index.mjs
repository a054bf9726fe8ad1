// A local double of GitHub's REST API for tests: see README.md beside this file.
export { GitHubDouble, OPERATIONS, PROBLEM_OUTCOMES, secondaryRateLimit, startGitHubDouble } from './server.mjs';
export { GITHUB_ACTIONS_BOT } from './state.mjs';
export { DOWNLOAD_URL_LIFETIME_MS } from './artifacts.mjs';
