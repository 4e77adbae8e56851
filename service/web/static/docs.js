// Starts Swagger UI on the service's own OpenAPI document.  A file of its own rather than an inline
// script, so that the page keeps the Content-Security-Policy "script-src 'self'".
window.addEventListener("load", () => {
  window.ui = SwaggerUIBundle({
    url: "/openapi.json",
    dom_id: "#swagger-ui",
    deepLinking: true,
  });
});
