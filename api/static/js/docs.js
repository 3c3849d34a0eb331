// The interactive API docs (api/templates/swagger_ui.html): Swagger UI on the app's own OpenAPI
// document, started from this file so that the page runs no inline script (its Content-Security-
// Policy allows scripts from this app's files only).

const spec = document.currentScript.dataset.spec;

window.addEventListener("load", () => {
  window.ui = SwaggerUIBundle({ url: spec, dom_id: "#swagger-ui-container" });
});
