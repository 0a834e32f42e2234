// Starts Swagger UI on the /docs page. A file rather than an inline script, because the service's
// Content-Security-Policy allows scripts from its own origin only.
window.addEventListener('DOMContentLoaded', function () {
  var root = document.getElementById('swagger-ui');
  window.ui = SwaggerUIBundle({
    url: root.dataset.specUrl,
    domNode: root,
    deepLinking: true,
    tryItOutEnabled: true, // every operation opens ready to send
    displayRequestDuration: true,
    defaultModelsExpandDepth: 0,
    validatorUrl: null, // never send the document to an outside validator
  });
});
