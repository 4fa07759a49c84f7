/// <reference lib="dom" />
// Entry of the browser bundle (src/console/bundle.ts).
import { h, render } from 'preact';
import { App } from './app.ts';
import './style.css';

const root = document.getElementById('app');
if (root) {
  root.textContent = '';
  render(h(App, {}), root);
}
