"""Round trips for the conversations family: render a spec carrying the hand-built facts (plus
a customer/colleague distractor and a superseded value), check the file is valid for its
format, extract it with the kind's own extractor and find every fact's value next to its
anchors; distractors only inside hedged sentences and before the current value;
byte-identical re-renders; another seed gives other bytes; noise specs render."""
from __future__ import annotations

import email
import json
import re
from email import policy

import pytest

from transforms import registry
from transforms.base import ExtractContext
from transforms.plan import ArtifactSpec, Distractor, FactMention
from transforms.writers import HEDGE_MARKERS

from .kinds_util import located, make_spec

KINDS = ["conversations/chat_transcript", "conversations/email_thread", "conversations/team_chat",
         "conversations/meeting_transcript"]


def check_round_trip(kind, spec, render_ctx, tmp_path):
    t = registry.get(kind)
    out = tmp_path / f"a{t.ext}"
    t.render(spec, render_ctx, out)
    ex = t.extract(out, ExtractContext())
    assert ex.extractor and len(ex.text) > 200
    facts = [render_ctx.fact(m.fact_id) for m in spec.facts]
    for f in facts:
        assert located(f, ex.text) >= 0, f"{kind}: {f.statement!r} not recoverable"
    low = ex.text.lower()
    for d in spec.distractors:
        lines = [ln for ln in low.splitlines() if re.search(re.escape(d.text.lower()) + r"(?![0-9])", ln)]
        assert lines, f"{kind}: distractor {d.text} missing"
        assert all(any(h in ln for h in HEDGE_MARKERS) for ln in lines), lines
        first_wrong = low.find(d.text.lower())
        assert first_wrong < located(render_ctx.fact(d.fact_id), ex.text), f"{kind}: {d.text} after the current value"
    return out, ex


@pytest.mark.parametrize("kind", KINDS)
def test_round_trip_deterministic(kind, hand_facts, render_ctx, tmp_path):
    spec = make_spec(kind, hand_facts)
    out, _ = check_round_trip(kind, spec, render_ctx, tmp_path)
    t = registry.get(kind)
    again = tmp_path / f"b{t.ext}"
    t.render(spec, render_ctx, again)
    assert out.read_bytes() == again.read_bytes()
    other = tmp_path / f"c{t.ext}"
    t.render(spec.model_copy(update={"seed": 2}), render_ctx, other)
    assert other.read_bytes() != out.read_bytes()


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("seed", [3, 4, 5])
def test_round_trip_other_seeds_voiced(kind, seed, hand_facts, render_ctx, tmp_path):
    check_round_trip(kind, make_spec(kind, hand_facts, seed=seed, renditions=("voiced",)), render_ctx, tmp_path)


@pytest.mark.parametrize("kind", KINDS)
def test_noise_renders_without_facts(kind, hand_facts, render_ctx, tmp_path):
    t = registry.get(kind)
    out = tmp_path / f"n{t.ext}"
    t.render(make_spec(kind, hand_facts, noise=True), render_ctx, out)
    text = t.extract(out, ExtractContext()).text
    assert len(text.splitlines()) >= 5
    for f in hand_facts:
        assert f.statement.lower() not in text.lower()


def test_chat_transcript_format(hand_facts, render_ctx, tmp_path):
    out, _ = check_round_trip("conversations/chat_transcript", make_spec("conversations/chat_transcript", hand_facts),
                              render_ctx, tmp_path)
    text = out.read_text(encoding="utf-8")
    for label in ("Case ID:", "Channel:", "Customer:", "Agent:", "Opened:"):
        assert label in text
    assert re.search(r"Case ID:\s+PW-\d{6}-\d{4}|Case ID:\s+[A-Z]+-\d{6}-\d{4}", text)
    turns = re.findall(r"^\[(\d\d:\d\d:\d\d)\] ([^:]+):", text, re.M)
    assert len(turns) >= 12
    assert [t for t, _ in turns] == sorted(t for t, _ in turns)
    assert "Jonah Pike" in text or "Ruth Okafor" in text or "Sam Delacroix" in text  # customer from the seed db


def test_email_thread_is_rfc5322_thread(hand_facts, render_ctx, tmp_path):
    out, ex = check_round_trip("conversations/email_thread", make_spec("conversations/email_thread", hand_facts),
                               render_ctx, tmp_path)
    msg = email.message_from_bytes(out.read_bytes(), policy=policy.default)
    assert not msg.defects
    assert msg["Subject"].startswith("Re: ")
    assert msg["Message-ID"] and msg["In-Reply-To"] and msg["Date"]
    refs = msg["References"].split()
    assert 2 <= len(refs) <= 9 and refs[-1] == msg["In-Reply-To"].strip()
    assert msg.get_content_type() == "multipart/alternative"
    types = [p.get_content_type() for p in msg.iter_parts()]
    assert types == ["text/plain", "text/html"]
    plain = msg.get_body(("plain",)).get_content().replace("\r\n", "\n")
    assert re.search(r"^On .+ wrote:$", plain, re.M) and "\n> " in plain
    assert msg["From"].split("<")[1].rstrip(">").endswith("pedalwise.example")
    assert ex.text.startswith("From: ")


def test_email_dates_precede_final(hand_facts, render_ctx, tmp_path):
    spec = make_spec("conversations/email_thread", hand_facts)
    out, _ = check_round_trip("conversations/email_thread", spec, render_ctx, tmp_path)
    msg = email.message_from_bytes(out.read_bytes(), policy=policy.default)
    plain = msg.get_body(("plain",)).get_content().replace("\r\n", "\n")
    # the superseded value sits in a quoted, earlier-dated message; the final one is unquoted
    old_line = next(ln for ln in plain.splitlines() if "$10" in ln)
    assert old_line.startswith(">")
    assert "2026-01-05" in old_line or "superseded" in old_line.lower()
    assert msg["Date"].startswith("Sat, 14 Feb 2026")


def test_team_chat_export_structure(hand_facts, render_ctx, tmp_path):
    out, ex = check_round_trip("conversations/team_chat", make_spec("conversations/team_chat", hand_facts),
                               render_ctx, tmp_path)
    data = json.loads(out.read_text(encoding="utf-8"))
    assert {"export", "channel", "users", "messages"} <= set(data)
    msgs = data["messages"]
    keys = [tuple(int(x) for x in m["ts"].split(".")) for m in msgs]
    assert keys == sorted(keys) and len(set(keys)) == len(keys)
    users = {u["id"] for u in data["users"]}
    assert all(m["user"] in users for m in msgs)
    parents = [m for m in msgs if m.get("reply_count")]
    assert len(parents) >= 3
    for p in parents:
        replies = [m for m in msgs if m.get("thread_ts") == p["ts"] and m is not p]
        assert p["reply_count"] == len(replies)
    assert len(ex.text.splitlines()) == len(msgs) + 1


def test_team_chat_answers_each_question_in_its_own_message(hand_facts, render_ctx, tmp_path):
    """A thread asking about two rules gets one reply per rule: no message states two facts."""
    t = registry.get("conversations/team_chat")
    for seed in range(1, 7):
        out = tmp_path / f"t{seed}.json"
        t.render(make_spec("conversations/team_chat", hand_facts, seed=seed), render_ctx, out)
        for line in t.extract(out, ExtractContext()).text.splitlines():
            body = line.split(": ", 1)[-1]
            assert sum(located(f, body) >= 0 for f in hand_facts) <= 1, line


def test_meeting_transcript_is_webvtt(hand_facts, render_ctx, tmp_path):
    out, ex = check_round_trip("conversations/meeting_transcript",
                               make_spec("conversations/meeting_transcript", hand_facts), render_ctx, tmp_path)
    text = out.read_text(encoding="utf-8")
    assert text.startswith("WEBVTT\n")
    timings = re.findall(r"^(\d\d):(\d\d):(\d\d)\.(\d\d\d) --> (\d\d):(\d\d):(\d\d)\.(\d\d\d)$", text, re.M)
    assert len(timings) >= 10
    secs = [(int(a) * 3600 + int(b) * 60 + int(c) + int(d) / 1000, int(e) * 3600 + int(f) * 60 + int(g) + int(h) / 1000)
            for a, b, c, d, e, f, g, h in timings]
    assert all(s < e for s, e in secs)
    assert all(secs[i][1] <= secs[i + 1][0] for i in range(len(secs) - 1))
    assert len(re.findall(r"<v [^>]+>", text)) == len(timings)
    assert "-->" not in ex.text and len(ex.text.splitlines()) == len(timings)
    assert all(re.match(r"^[A-Z][\w .'-]+: ", ln) for ln in ex.text.splitlines())


def test_unknown_fact_is_a_user_error(hand_facts, render_ctx, tmp_path):
    from facts.errors import FactforgeError

    spec = make_spec("conversations/chat_transcript", hand_facts)
    spec.facts.append(FactMention(fact_id="_mock.nowhere.0000000000"))
    with pytest.raises(FactforgeError, match="unknown fact"):
        registry.get("conversations/chat_transcript").render(spec, render_ctx, tmp_path / "x.txt")


def test_orphan_distractor_is_hedged_and_not_corrected(hand_facts, render_ctx, tmp_path):
    """A distractor of a fact carried elsewhere is mentioned hedged; its value is not stated here."""
    for kind in KINDS:
        t = registry.get(kind)
        spec = ArtifactSpec(id="o-1", kind=kind, path="x", seed=7, date="2026-02-14",
                            facts=[FactMention(fact_id=hand_facts[0].id)],
                            distractors=[Distractor(fact_id=hand_facts[4].id, slot="days", text="10 business days",
                                                    role="distractor")])
        out = tmp_path / f"o{t.ext}"
        t.render(spec, render_ctx, out)
        text = t.extract(out, ExtractContext()).text.lower()
        lines = [ln for ln in text.splitlines() if "10 business days" in ln]
        assert lines and all(any(h in ln for h in HEDGE_MARKERS) for ln in lines), kind
        assert "5 business days" not in text, kind


def test_extract_vtt_skips_header_note_and_style(tmp_path):
    from transforms.extract.text import extract_vtt

    p = tmp_path / "x.vtt"
    p.write_text("WEBVTT - demo\n\nSTYLE\n::cue { color: red }\n\nNOTE a note with $99\n\n"
                 "intro\n00:01.000 --> 00:02.500 align:start\n<v.loud Ana Diaz>Fees &amp; limits</v>\n\n"
                 "00:00:03.000 --> 00:00:04.000\nplain <b>cue</b>\nsecond line\n", encoding="utf-8")
    assert extract_vtt(p) == "Ana Diaz: Fees & limits\nplain cue second line\n"


def test_extract_eml_reads_html_only_and_attachments(tmp_path):
    from email.message import EmailMessage

    from transforms.extract.text import extract_eml

    m = EmailMessage()
    m["From"], m["To"], m["Subject"] = "a@x.example", "b@x.example", "Rates"
    m.set_content("<html><body><p>The fee is <b>$75</b>.</p><style>p{}</style></body></html>", subtype="html")
    m.add_attachment("note: deposit $50", filename="note.txt")
    p = tmp_path / "m.eml"
    p.write_bytes(bytes(m))
    text = extract_eml(p)
    assert "Subject: Rates" in text and "The fee is $75." in text and "p{}" not in text
    assert "[attachment: note.txt]" in text and "deposit $50" in text


def test_json_strings_in_document_order(tmp_path):
    from transforms.extract.text import extract_json_strings

    p = tmp_path / "d.json"
    p.write_text(json.dumps({"a": "one", "b": [{"text": "two", "n": 3}, {"text": "three"}], "c": ""}))
    assert extract_json_strings(p) == "one\ntwo\nthree\n"
    assert extract_json_strings(p, keys=["text"]) == "two\nthree\n"


@pytest.mark.parametrize("kind", KINDS)
def test_noise_keeps_stray_distractors_hedged(kind, hand_facts, render_ctx, tmp_path):
    """The planner puts stray distractors (facts carried elsewhere) into noise artifacts."""
    t = registry.get(kind)
    for seed in range(4):
        spec = ArtifactSpec(id=f"n-{seed}", kind=kind, path="x", seed=seed, date="2026-02-14", noise=True,
                            distractors=[Distractor(fact_id=hand_facts[1].id, slot="deposit", text="$45",
                                                    role="distractor")])
        out = tmp_path / f"s{t.ext}"
        t.render(spec, render_ctx, out)
        lines = [ln for ln in t.extract(out, ExtractContext()).text.lower().splitlines() if "$45" in ln]
        assert lines and all(any(h in ln for h in HEDGE_MARKERS) for ln in lines), (kind, seed)


def test_email_thread_never_passes_25_messages(hand_facts, render_ctx, tmp_path):
    """Routine exchanges are written whole, so a thread padded to the planner's largest size
    overshoots it; the oldest routine mails go, the planned ones stay."""
    from audits.difficulty import email_messages

    counts = []
    for seed in range(6):
        for noise in (False, True):
            spec = make_spec("conversations/email_thread", hand_facts, seed=seed, noise=noise).model_copy(
                update={"size": 25})
            out, ex = (check_round_trip("conversations/email_thread", spec, render_ctx, tmp_path) if not noise else
                       (None, None))
            if noise:
                t = registry.get("conversations/email_thread")
                out = tmp_path / f"n{seed}.eml"
                t.render(spec, render_ctx, out)
                ex = t.extract(out, ExtractContext())
            counts.append(email_messages(ex.text))
    assert max(counts) <= 25 and min(counts) >= 20, counts


def test_team_chat_posts_an_old_value_its_date_resolves_on_that_date(hand_facts, render_ctx, tmp_path):
    """The banking text-only build (seed 0) failed the recoverability gate: a team chat holding
    only old values resolved by the file's date (no fact carried) posted each in a thread moved
    a day back, so no message showed the file's date (2026-04-12; every message was of the
    11th). A thread with such a value is posted on the file's date."""
    from audits.recoverability import date_visible
    from transforms.clock import spec_date

    t = registry.get("conversations/team_chat")
    old = [("age", "18"), ("deposit", "$40"), ("fee", "$10"), ("discount", "15%"), ("days", "7 business days")]
    for seed in range(40):
        # no routine threads (size: as many threads as values), so no chit-chat shows the date by chance
        spec = ArtifactSpec(id=f"tc-{seed}", kind="conversations/team_chat", path="x", seed=seed, date="2026-02-14",
                            noise=True, size=len(old), distractors=[
                                Distractor(fact_id=f.id, slot=slot, text=text, role="superseded", date="2026-02-14",
                                           resolution="date") for f, (slot, text) in zip(hand_facts, old)])
        out = tmp_path / f"tc{seed}.json"
        t.render(spec, render_ctx, out)
        text = t.extract(out, ExtractContext()).text
        assert date_visible(text, spec_date(spec)), (seed, text[-600:])


def test_a_long_chat_greets_once_and_says_goodbye_last(hand_facts, render_ctx, tmp_path):
    """A chat that opens with routine talk about the customer's record before its questions
    once took that talk with its own greeting and goodbye: "Hi there Zhang, you're through to
    Ravi!" after "I'm checking ... now", and the agent's "My pleasure, Zhang, enjoy the rest of
    your day!" before the questions (a banking_knowledge transcript). The routine part is the
    exchange's business only."""
    t = registry.get("conversations/chat_transcript")
    # the agent's goodbye of the routine exchange's closing ritual
    bye = re.compile(r"^(?:You're welcome|My pleasure|Happy to help|Glad (?:I could help|we got that sorted|that's "
                     r"sorted)|No problem at all), \w+", re.I)
    greet = re.compile(r"you're through to|\bthis is \w+ from\b|, \w+ here\b", re.I)
    for seed in range(12):
        spec = make_spec("conversations/chat_transcript", hand_facts[:3], seed=seed)
        spec.size = 20
        out = tmp_path / f"c{seed}.txt"
        t.render(spec, render_ctx, out)
        lines = re.findall(r"^\[\d\d:\d\d:\d\d\] ([^:]+): (.*)$", out.read_text(encoding="utf-8"), re.M)
        said = [text for who, text in lines if who != "System"]
        first_q = next(i for i, s in enumerate(said) if s.rstrip().endswith("?") and i > 2)
        assert not [s for s in said[3:] if greet.search(s)], said
        assert not [s for s in said[:first_q] if bye.search(s)], said


def test_the_routine_talk_is_the_speakers_own(hand_facts, render_ctx, tmp_path):
    """A chat whose customer has no record in the seed database (every customer of `_mock`)
    took its routine talk from another customer: Ruth Okafor gave Jonah Pike's e-mail. Every
    address in the chat is now the speaker's own (the database's, or a new one of theirs)."""
    t = registry.get("conversations/chat_transcript")
    for seed in range(12):
        spec = make_spec("conversations/chat_transcript", hand_facts[:3], seed=seed)
        spec.size = 20
        out = tmp_path / f"c{seed}.txt"
        t.render(spec, render_ctx, out)
        text = out.read_text(encoding="utf-8")
        first = re.search(r"\] System: (\S+) .* joined the chat", text).group(1).lower()
        mails = set(re.findall(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+", text))
        assert mails and all(m.startswith(first) for m in mails), (first, mails)
