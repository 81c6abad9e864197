'use strict';
// The global pool of open requests (every held one: comet, poll, and the SSE and WebSocket streams of issue
// #38; all events) and, per event name, the requests subscribed to it in subscription order. Subscription is by name: a name needs no emitter to be subscribed to.
//
// Node runs this on one thread, so there is no lock to hold; the study's lesson (do not block new requests
// for a whole emit cycle) is honoured by emitters iterating a snapshot taken from subscribersOf() and
// yielding between batches (emitter.js), so add() and remove() run between batches of a long cycle.

class RequestPool {
  constructor() {
    this.open = new Set();
    this.byEvent = new Map(); // event name -> Set of requests, insertion (= subscription) order
    this.byType = { comet: 0, poll: 0, sse: 0, ws: 0 };   // open requests of each held type
    this.elsewhere = 0; // node-cluster: requests open on the other workers, as last heard (cluster-worker.js)
  }

  // Open requests of the whole server: the records' connections.start and .finish.
  get size() { return this.open.size + this.elsewhere; }

  // Returns the open count just after adding (the record's connections.start).
  add(request) {
    if (this.open.has(request)) return this.size;
    this.open.add(request);
    this.byType[request.type]++;
    for (const name of request.events) {
      let subscribers = this.byEvent.get(name);
      if (!subscribers) this.byEvent.set(name, (subscribers = new Set()));
      subscribers.add(request);
    }
    return this.size;
  }

  // Removes the request from the pool and every subscription list. False if it was not open.
  remove(request) {
    if (!this.open.delete(request)) return false;
    this.byType[request.type]--;
    for (const name of request.events) {
      const subscribers = this.byEvent.get(name);
      if (!subscribers) continue;
      subscribers.delete(request);
      if (subscribers.size === 0) this.byEvent.delete(name);
    }
    return true;
  }

  has(request) { return this.open.has(request); }

  // A copy: later adds and removes do not change it (the emit cycle's snapshot).
  subscribersOf(name) {
    const subscribers = this.byEvent.get(name);
    return subscribers ? Array.from(subscribers) : [];
  }

  // A copy of every open request, in the order they arrived.
  all() { return Array.from(this.open); }

  // This process's requests (node-cluster's primary sums the workers' for /status).
  counts() { return { open: this.open.size, ...this.byType }; }
}

module.exports = { RequestPool };
