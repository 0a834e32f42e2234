// The Print button: shown only when script runs (it needs window.print), and never inline (CSP).
document.addEventListener('DOMContentLoaded', function () {
  var button = document.querySelector('.print-button');
  if (!button) return;
  button.hidden = false;
  button.addEventListener('click', function () {
    window.print();
  });
});
