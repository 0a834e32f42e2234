import path from 'node:path';
import express, { type RequestHandler, type Router } from 'express';
// The path helper alone: swagger-ui-dist's main module would load the 1.5 MB browser bundle into Node.
import swaggerUiDir from 'swagger-ui-dist/absolute-path';
import { projectRoot } from '../paths';
import { docsPage } from './page';

// The files the page uses (and their source maps, for browser devtools). The rest of swagger-ui-dist,
// such as its demo index.html that points at an outside document, is not served.
const SWAGGER_UI_FILES = new Set(['swagger-ui.css', 'swagger-ui-bundle.js', 'favicon-32x32.png']);
const served = (file: string) => SWAGGER_UI_FILES.has(file) || SWAGGER_UI_FILES.has(file.replace(/\.map$/, ''));

const onlyServed: RequestHandler = (req, _res, next) => {
  if (served(req.path.slice(1))) next();
  else next('router');
};

/** The API reference at /docs: Swagger UI over the OpenAPI document, with every asset served locally. */
export function createDocsRouter({ specUrl = '/v2/openapi.json' }: { specUrl?: string } = {}): Router {
  const router = express.Router();
  router.get('/', (req, res) => {
    res.type('html').send(docsPage({ assets: `${req.baseUrl}/assets`, spec: specUrl }));
  });
  router.use('/assets/swagger-ui', onlyServed, express.static(swaggerUiDir(), { index: false }));
  router.use('/assets', express.static(path.join(projectRoot, 'public/docs'), { index: false }));
  return router;
}
