// Starts Swagger UI on the /docs page. A file rather than an inline script, because the service's
// Content-Security-Policy allows scripts from its own origin only.
(function () {
  'use strict';

  // Some of Swagger UI's components, changed so that the page passes axe-core (WCAG 2.1 A and AA);
  // the colours are in docs.css. test/browser/docs-accessibility.test.ts checks the whole page.
  function accessibility(system) {
    var h = system.React.createElement;
    return {
      components: {
        // An operation's path without the deep link that Swagger UI puts inside the button that opens
        // the operation: a link within a button is two controls in one, which screen readers cannot
        // tell apart. Opening an operation still writes its link into the address bar (deepLinking).
        OperationSummaryPath: function (props) {
          var op = props.operationProps.toJS();
          return h(
            'span',
            { className: op.deprecated ? 'opblock-summary-path__deprecated' : 'opblock-summary-path', 'data-path': op.path },
            h('span', null, op.path),
          );
        },
        // A schema's open/close button: Swagger UI leaves it empty for a schema without a title.
        JSONSchema202012Accordion: function (props) {
          var Chevron = system.getComponent('JSONSchema202012ChevronRightIcon');
          return h(
            'button',
            {
              type: 'button',
              className: 'json-schema-2020-12-accordion',
              'aria-expanded': !!props.expanded,
              onClick: function (event) {
                props.onChange(event, !props.expanded);
              },
            },
            h('div', { className: 'json-schema-2020-12-accordion__children' }, props.children),
            h('span', { className: 'visually-hidden' }, 'schema'),
            h(
              'span',
              {
                className:
                  'json-schema-2020-12-accordion__icon json-schema-2020-12-accordion__icon--' + (props.expanded ? 'expanded' : 'collapsed'),
              },
              h(Chevron),
            ),
          );
        },
      },
      wrapComponents: {
        // The close button of the "Authorize" dialog is this icon alone: give it words.
        CloseIcon: function (Original) {
          return function (props) {
            return h(system.React.Fragment, null, h(Original, props), h('span', { className: 'visually-hidden' }, 'Close'));
          };
        },
        // A button that shows words is named by them (Swagger UI's "Authorize" says "Apply credentials").
        Button: function (Original) {
          return function (props) {
            if (typeof props.children !== 'string' || !props['aria-label']) return h(Original, props);
            var named = Object.assign({}, props);
            delete named['aria-label'];
            return h(Original, named);
          };
        },
        // Swagger UI's server select has a <label> without text; this one names it, and takes the
        // place of the "Servers" title beside it (docs.css hides that one).
        Servers: function (Original) {
          return function (props) {
            return h(
              system.React.Fragment,
              null,
              h('label', { htmlFor: 'servers', className: 'servers-label' }, 'Server'),
              h(Original, props),
            );
          };
        },
        // A response body can be long, and scrolls in its box: the keyboard must be able to reach the box
        // to scroll it. (Examples are shown whole: docs.css.)
        HighlightCode: function (Original) {
          return function (props) {
            var frame = system.React.useRef(null);
            var scrolls = !!props.downloadable;
            system.React.useEffect(function () {
              var box = scrolls && frame.current.querySelector('.microlight');
              if (!box) return;
              box.tabIndex = 0;
              box.setAttribute('role', 'region');
              box.setAttribute('aria-label', 'Response body');
            });
            return h('div', { ref: frame, className: 'highlight-code-frame' }, h(Original, props));
          };
        },
      },
    };
  }

  window.addEventListener('DOMContentLoaded', function () {
    var root = document.getElementById('swagger-ui');
    window.ui = SwaggerUIBundle({
      url: root.dataset.specUrl,
      domNode: root,
      plugins: [accessibility],
      deepLinking: true,
      tryItOutEnabled: true, // every operation opens ready to send
      displayRequestDuration: true,
      defaultModelsExpandDepth: 0,
      syntaxHighlight: false, // its colours on the dark code boxes are too faint to read (contrast below 4.5:1)
      validatorUrl: null, // never send the document to an outside validator
    });
  });
})();
