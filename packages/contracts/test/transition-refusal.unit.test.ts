import { expect } from 'chai';
import { transitionRefusalMessage } from '../src/transition-refusal';

describe('contracts: a refused move in words', () => {
  it('says a record is already where the move leads (a second click), in plain words', () => {
    expect(transitionRefusalMessage('campaign', 'active', 'activate', 'active')).to.equal('This campaign is already active.');
    expect(transitionRefusalMessage('platform', 'approved', 'approve', 'approved')).to.equal('This platform is already approved.');
    expect(transitionRefusalMessage('campaign', 'submitted', 'submit', 'submitted')).to.equal('This campaign is already waiting for review.');
  });

  it('says why another move cannot happen now, without the state machine\'s terms', () => {
    const message = transitionRefusalMessage('campaign', 'draft', 'activate', 'active');
    expect(message).to.equal('This campaign is still a draft, so it cannot be activated now.');
    expect(transitionRefusalMessage('platform', 'submitted', 'pause', 'paused')).to.equal('This platform is waiting for review, so it cannot be paused now.');
    for (const text of [message, transitionRefusalMessage('campaign', 'active', 'approve', 'approved')]) expect(text).to.not.match(/\bA active\b|moved by|invalid|transition/);
  });
});
