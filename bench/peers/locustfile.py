# Locust's side of bench/peers.sh (issue #48 item 4, "against the peers"): N users, one SSE stream or one
# WebSocket each, on the server at 127.0.0.1:<PEERS_PORT>, subscribed to event1 as pushbench's engine
# subscribes (SSE: GET /request?type=sse&events=event1; WebSocket: upgrade of GET /request, then the first
# message {"type":"ws","events":["event1"]}). Locust ships no SSE or plain WebSocket user (its contrib has
# Socket.IO only), so the users are written here the way Locust's documentation writes custom clients:
#   SSE        Locust's own HttpUser client (a requests session), GET with stream=True, each "data:" line read
#              with iter_lines (the response is chunked, so each record is read as it arrives)
#   WebSocket  websocket-client (the library Locust's Socket.IO user rests on through python-socketio),
#              cooperative under Locust's gevent
# Every event record is reported to Locust as a request ("record", type SSE or WS) whose response time is
# its trip time: arrival (time.time(), ms) - the emit cycle's "created" (ms, the server's clock: one clock on
# this machine) - 0.5, the measure of pushbench's engine (docs/trip-time.md with offset 0). A stream that
# ends or breaks is a failed "stream" request and is opened again 1 s later (a reconnection).
#
# The load comes from a LoadTestShape: no user for PEERS_BASELINE s after the start (the bench measures the
# idle process then), then N users at once (spawn rate N/s), until the file PEERS_STOP exists; the shape then
# ends the test and Locust quits. Prints "ready" when the test starts; at the end writes one JSON line to
# PEERS_REPORT: records received, their trip time p50 / p99 (ms, as Locust's stats give them), failed
# streams, reconnections (streams opened beyond N).
#
#   PEERS_PORT=<port> PEERS_TRANSPORT=sse|ws PEERS_CONNECTIONS=<N> PEERS_BASELINE=<s> PEERS_STOP=<file>
#   PEERS_REPORT=<file> locust -f bench/peers/locustfile.py --headless --only-summary
import json
import os
import time

import websocket
from locust import HttpUser, LoadTestShape, User, constant, events, task

PORT = int(os.environ.get('PEERS_PORT', '0'))
TRANSPORT = os.environ.get('PEERS_TRANSPORT', 'sse')
CONNECTIONS = int(os.environ.get('PEERS_CONNECTIONS', '0'))
BASELINE_S = float(os.environ.get('PEERS_BASELINE', '5'))
STOP = os.environ.get('PEERS_STOP', '')
REPORT = os.environ.get('PEERS_REPORT', '')
SUBSCRIPTION = '{"type":"ws","events":["event1"]}'
RECORD_PREFIX = '{"response":{"event":'
CREATED = '"created":'
opened = {'streams': 0}


def trip_ms(record, arrival_ms):
    """An event record's trip time in ms (arrival - created - 0.5), None for any other record."""
    if not record.startswith(RECORD_PREFIX):
        return None
    at = record.find(CREATED)
    if at < 0:
        return None
    start = end = at + len(CREATED)
    while end < len(record) and record[end].isdigit():
        end += 1
    if end == start:
        return None
    return arrival_ms - (int(record[start:end]) + 0.5)


def report_record(user, kind, record):
    trip = trip_ms(record, time.time() * 1000)
    if trip is not None:
        user.environment.events.request.fire(request_type=kind, name='record', response_time=trip,
                                             response_length=len(record), exception=None, context={})


def report_broken(user, kind, exception):
    user.environment.events.request.fire(request_type=kind, name='stream', response_time=0,
                                         response_length=0, exception=exception, context={})


class SseUser(HttpUser):
    host = f'http://127.0.0.1:{PORT}'
    abstract = TRANSPORT != 'sse'
    wait_time = constant(1)   # between a stream's end and the next: a reconnection, not a busy loop

    @task
    def hold(self):
        opened['streams'] += 1
        try:
            # (no with-block: Locust's would report the subscribe only when the stream ends)
            response = self.client.get('/request?type=sse&events=event1', name='subscribe', stream=True, timeout=None)
            try:
                for line in response.iter_lines(decode_unicode=True):
                    if isinstance(line, bytes):   # no charset known: requests leaves the bytes
                        line = line.decode('utf-8', 'replace')
                    if line.startswith('data: '):
                        report_record(self, 'SSE', line[6:])
            finally:
                response.close()
            report_broken(self, 'SSE', ConnectionError('the stream ended'))
        except Exception as e:  # a broken stream; Locust's stop ends the greenlet with GreenletExit, not this
            report_broken(self, 'SSE', e)


class WsUser(User):
    abstract = TRANSPORT != 'ws'
    wait_time = constant(1)

    @task
    def hold(self):
        opened['streams'] += 1
        ws = None
        try:
            ws = websocket.create_connection(f'ws://127.0.0.1:{PORT}/request')
            ws.send(SUBSCRIPTION)
            while True:
                message = ws.recv()
                if not message:
                    break
                report_record(self, 'WS', message)
            report_broken(self, 'WS', ConnectionError('the stream ended'))
        except Exception as e:
            report_broken(self, 'WS', e)
        finally:
            if ws is not None:
                ws.close()


class HeldStreams(LoadTestShape):
    def tick(self):
        if STOP and os.path.exists(STOP):
            return None
        if self.get_run_time() < BASELINE_S:
            return (0, 1)
        return (CONNECTIONS, CONNECTIONS)


@events.test_start.add_listener
def on_start(**_):
    print('ready', flush=True)


@events.quitting.add_listener
def on_quit(environment, **_):
    kind = 'SSE' if TRANSPORT == 'sse' else 'WS'
    records = environment.stats.get('record', kind)
    broken = environment.stats.get('stream', kind)
    line = {
        'received': records.num_requests,
        'tripP50Ms': records.get_response_time_percentile(0.5) if records.num_requests else None,
        'tripP99Ms': records.get_response_time_percentile(0.99) if records.num_requests else None,
        'failed': broken.num_failures,
        'reconnections': max(0, opened['streams'] - CONNECTIONS),
    }
    if REPORT:
        with open(REPORT, 'w') as f:
            f.write(json.dumps(line) + '\n')
