// The /docs page: a shell that Swagger UI fills from the OpenAPI document. Everything it loads is
// served by this service (no CDN), and its only script is a file: the CSP allows no inline script.

export interface DocsPageUrls {
  /** Where the page's own assets are served, e.g. /docs/assets. */
  assets: string;
  /** The OpenAPI document the page renders. */
  spec: string;
}

const escapeAttribute = (value: string) => value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export function docsPage({ assets, spec }: DocsPageUrls): string {
  const [a, s] = [escapeAttribute(assets), escapeAttribute(spec)];
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>API reference · Rider equipment service</title>
  <link rel="icon" type="image/png" href="${a}/swagger-ui/favicon-32x32.png">
  <link rel="stylesheet" href="${a}/swagger-ui/swagger-ui.css">
  <link rel="stylesheet" href="${a}/docs.css">
</head>
<body>
  <noscript>
    <p>This reference needs JavaScript. The contract itself is the OpenAPI document at <a href="${s}">${s}</a>.</p>
  </noscript>
  <div id="swagger-ui" data-spec-url="${s}"></div>
  <script src="${a}/swagger-ui/swagger-ui-bundle.js"></script>
  <script src="${a}/swagger-init.js"></script>
</body>
</html>
`;
}
