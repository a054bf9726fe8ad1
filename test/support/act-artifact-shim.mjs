// A forwarding shim in front of act's artifact server, repairing two ways in which act v0.2.89
// and the current @actions/artifact no longer agree (measured here, 2026-11):
//
// 1. act signs its upload and download URLs with `sig=<base64 with "=" padding>`; Azure's
//    storage SDK (@azure/storage-blob 12.18 and later, through @azure/core-client) re-parses the
//    query with split("=", 2) and drops the padding, and act then answers "Error unauthorized"
//    to every block upload (nektos/act#6021). The shim puts the padding back.
// 2. @actions/artifact 6.2 sends `mime_type` in CreateArtifact; act's protobuf decoder refuses
//    unknown fields ("unknown field mime_type"). The shim drops that one field.
//
// Everything else passes through untouched, including the Host header, so the signed URLs act
// builds point back at the shim. act reads ACTIONS_RUNTIME_URL from its own environment and
// hands it to the job as ACTIONS_RESULTS_URL; that is how the job finds the shim.
import http from 'node:http';

const SERVICE = '/twirp/github.actions.results.api.v1.ArtifactService/';

function repadSignature(rawUrl) {
  const url = new URL(rawUrl, 'http://shim');
  if (!url.pathname.startsWith(SERVICE)) return rawUrl;
  return rawUrl.replace(/([?&]sig=)([A-Za-z0-9_-]+)(?=&|$)/, (match, prefix, sig) => prefix + sig + '='.repeat((4 - (sig.length % 4)) % 4));
}

function dropUnknownCreateFields(path, body) {
  if (!path.startsWith(`${SERVICE}CreateArtifact`) || !body.length) return body;
  const request = JSON.parse(body.toString('utf8'));
  delete request.mime_type;
  return Buffer.from(JSON.stringify(request));
}

/** Starts the shim on 127.0.0.1 forwarding to act's artifact server at targetPort; { url, close }. */
export async function startArtifactShim({ targetPort }) {
  const server = http.createServer((request, response) => {
    const chunks = [];
    request.on('data', (chunk) => chunks.push(chunk));
    request.on('end', () => {
      let body;
      try {
        body = dropUnknownCreateFields(request.url, Buffer.concat(chunks));
      } catch (error) {
        response.writeHead(400);
        response.end(`artifact shim: request body is not JSON: ${error.message}`);
        return;
      }
      const headers = { ...request.headers, 'content-length': String(body.length) };
      delete headers['transfer-encoding'];
      const forward = http.request(
        { host: '127.0.0.1', port: targetPort, method: request.method, path: repadSignature(request.url), headers },
        (answer) => {
          response.writeHead(answer.statusCode, answer.headers);
          answer.pipe(response);
        },
      );
      forward.on('error', (error) => {
        response.writeHead(502);
        response.end(`artifact shim: act's artifact server on port ${targetPort}: ${error.message}`);
      });
      forward.end(body);
    });
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  return {
    url: `http://127.0.0.1:${server.address().port}/`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections?.();
        server.close(resolve);
      }),
  };
}
