"""Round trips of the recordings family: render a spec carrying hand-built facts, check the file
is real audio/video, recognise it back (speech recognition restricted to the domain's
candidate phrases, OCR of video frames) and check that the values that were spoken are found
while values that were not spoken (other facts, decoys, a fact cut out) are not."""
from __future__ import annotations

import re
import wave
from pathlib import Path

import pytest

from facts.errors import FactforgeError
from facts.surface import spoken_form, surface_forms
from tests.conftest import _hand_facts
from transforms.base import ExtractContext, RenderContext
from transforms.plan import ArtifactSpec, Distractor, FactMention

AGE, DEPOSIT, FEE, DISCOUNT, DAYS = range(5)
DECOYS = ["forty dollars", "thirty percent", "seven business days", "fifteen dollars", "eighteen",
          "sixty dollars"]


@pytest.fixture(scope="module")
def facts():
    return _hand_facts()


@pytest.fixture(scope="module")
def ctx(facts, tmp_path_factory):
    from domains import get_pack
    from transforms.writers import BuiltinWriter

    pack = get_pack("_mock")
    return RenderContext(pack=pack, facts={f.id: f for f in facts}, writer=BuiltinWriter(pack),
                         db=pack.database(0), workdir=tmp_path_factory.mktemp("scratch"))


@pytest.fixture(scope="module")
def candidates(facts):
    """What an audit passes: every slot of every fact in spoken form, anchor terms, plus
    values the domain could use that no file here speaks."""
    values = [spoken_form(s) for f in facts for s in f.slots]
    anchors = sorted({a for f in facts for a in f.anchors})
    return values + DECOYS + anchors


def _spec(kind: str, facts, idx, seed: int = 1, distractors=(), noise: bool = False) -> ArtifactSpec:
    return ArtifactSpec(id=f"{kind}-{seed:04d}", kind=f"recordings/{kind}", path=f"evidence/recordings/{kind}.x",
                        seed=seed, date="2026-02-20", title=kind,
                        facts=[FactMention(fact_id=facts[i].id, rendition="voiced" if n % 2 else "canonical")
                               for n, i in enumerate(idx)],
                        distractors=list(distractors), noise=noise)


def _wrong(facts, i: int, text: str, role: str) -> Distractor:
    f = facts[i]
    return Distractor(fact_id=f.id, slot=f.slots[0].name, text=text, role=role,
                      date="2026-01-05" if role == "superseded" else None)


def _says(text: str, phrase: str) -> bool:
    return re.search(rf"(?<![a-z]){re.escape(phrase.lower())}(?![a-z])", text.lower()) is not None


def _shows(text: str, slot) -> bool:
    return any(_says(text, form) for form in surface_forms(slot))


# Each case: kind, carried facts, distractor (fact, wrong value, its spoken form, role).
CASES = {
    "call_audio": ((DEPOSIT, FEE, DISCOUNT), (DEPOSIT, "$75", "seventy five dollars", "distractor")),
    "voicemail": ((AGE, DAYS), (DAYS, "10 business days", "ten business days", "superseded")),
    "screen_recording": ((FEE, DISCOUNT, DAYS), (FEE, "$20", "twenty dollars", "superseded")),
}
_RENDERED: dict = {}


def _render(kind: str, facts, ctx, tmp_path_factory) -> tuple[Path, Path]:
    """The case's file rendered twice (cached per module: rendering and recognising are slow).
    Both renders file the hearing of their file in one extraction cache (keyed by its bytes):
    the second render hears again only a file that differs from the first."""
    from dataclasses import replace

    from transforms.registry import get

    if kind not in _RENDERED:
        idx, (di, wrong, _, role) = CASES[kind]
        spec = _spec(kind, facts, idx, distractors=[_wrong(facts, di, wrong, role)])
        d = tmp_path_factory.mktemp(kind)
        a, b = d / "a.bin", d / "b.bin"  # the caller's temp paths carry no extension
        both = replace(ctx, extraction_cache=d / "extractions")
        get(spec.kind).render(spec, both, a)
        get(spec.kind).render(spec, both, b)
        _RENDERED[kind] = (a, b)
    return _RENDERED[kind]


def test_kinds_registered():
    from transforms.registry import get, kinds

    keys = set(kinds())
    assert {"recordings/call_audio", "recordings/voicemail", "recordings/screen_recording"} <= keys
    assert (get("recordings/call_audio").ext, get("recordings/call_audio").modality) == (".wav", "wav")
    assert get("recordings/voicemail").max_facts == 2
    assert (get("recordings/screen_recording").ext, get("recordings/screen_recording").modality) == (".mp4", "mp4")


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["call_audio", "voicemail"])
def test_wav_round_trip(kind, facts, ctx, candidates, tmp_path_factory):
    from transforms.registry import get

    a, b = _render(kind, facts, ctx, tmp_path_factory)
    assert a.read_bytes() == b.read_bytes(), "same spec must give byte-identical audio"
    with wave.open(str(a), "rb") as w:
        assert (w.getnchannels(), w.getsampwidth(), w.getframerate()) == (1, 2, 16000)
        seconds = w.getnframes() / w.getframerate()
    assert 15 < seconds < 150

    ex = get(f"recordings/{kind}").extract(a, ExtractContext(candidates=candidates))
    assert ex.extractor == "asr-pocketsphinx-grammar"
    idx = CASES[kind][0]
    for i in idx:
        assert _shows(ex.text, facts[i].slots[0]), f"{spoken_form(facts[i].slots[0])!r} not recognised:\n{ex.text}"
    for i in set(range(5)) - set(idx):
        assert not _says(ex.text, spoken_form(facts[i].slots[0])), f"fact {i} was not spoken:\n{ex.text}"
    for d in DECOYS:
        assert not _says(ex.text, d), f"decoy {d!r} recognised:\n{ex.text}"
    anchors = {a for i in idx for a in facts[i].anchors}
    assert sum(_says(ex.text, a) for a in anchors) >= len(anchors) // 2


@pytest.mark.slow
def test_call_without_a_fact_does_not_yield_it(facts, ctx, candidates, tmp_path, tmp_path_factory):
    """Cut the discount fact out (and change the seed): its value must not be recognised."""
    from transforms.registry import get

    kind = get("recordings/call_audio")
    spec = _spec("call_audio", facts, (DEPOSIT, FEE), seed=2)
    out = tmp_path / "cut.wav"
    kind.render(spec, ctx, out)
    full, _ = _render("call_audio", facts, ctx, tmp_path_factory)
    assert out.read_bytes() != full.read_bytes()
    text = kind.extract(out, ExtractContext(candidates=candidates)).text
    assert _says(text, "fifty dollars") and _says(text, "twelve dollars"), text
    assert not _says(text, "twenty percent"), text


@pytest.mark.slow
def test_screen_recording_round_trip(facts, ctx, candidates, tmp_path_factory):
    from transforms.extract.video import streams
    from transforms.registry import get

    a, b = _render("screen_recording", facts, ctx, tmp_path_factory)
    assert a.read_bytes() == b.read_bytes(), "same spec must give a byte-identical mp4"
    assert a.read_bytes()[4:8] == b"ftyp"
    kinds = [s.split(",")[0] for s in streams(a)]
    assert any(k.startswith("Video: h264") for k in kinds) and any(k.startswith("Audio: aac") for k in kinds), kinds

    ex = get("recordings/screen_recording").extract(a, ExtractContext(candidates=candidates))
    assert ex.extractor == "ocr-frames+asr-pocketsphinx"
    frames, audio = ex.parts["frames"], ex.parts["audio"]
    idx, (_, wrong, wrong_spoken, _) = CASES["screen_recording"]
    for i in idx:
        slot = facts[i].slots[0]
        assert _shows(frames, slot), f"{slot.text!r} not on screen:\n{frames}"
        assert _says(audio, spoken_form(slot)), f"{spoken_form(slot)!r} not heard:\n{audio}"
    assert wrong in frames and _says(audio, wrong_spoken)
    undated = re.sub(r"\b[A-Z][a-z]{2} \d{1,2}, \d{4}\b", " ", frames)  # "Feb 16, 2026" is no age
    for i in set(range(5)) - set(idx):
        assert not _shows(undated, facts[i].slots[0]) and not _says(audio, spoken_form(facts[i].slots[0]))
    for d in DECOYS:
        assert not _says(audio, d), f"decoy {d!r} recognised:\n{audio}"
    assert _says(frames, "late fee") and _says(frames, "discount")


@pytest.mark.slow
def test_noise_call_renders_and_unknown_fact_fails(facts, ctx, tmp_path):
    from transforms.registry import get

    kind = get("recordings/call_audio")
    kind.render(_spec("call_audio", facts, (), seed=5, noise=True), ctx, tmp_path / "noise.wav")
    with wave.open(str(tmp_path / "noise.wav"), "rb") as w:
        assert w.getframerate() == 16000 and w.getnframes() > 16000 * 10
    bad = _spec("call_audio", facts, ()).model_copy(update={"facts": [FactMention(fact_id="_mock.nope.0")]})
    with pytest.raises(FactforgeError):
        kind.render(bad, ctx, tmp_path / "bad.wav")


def test_speakable_and_candidate_normalisation(facts):
    from transforms.extract.asr import normalize, phrases_in_dictionary
    from transforms.extract.audio import speakable
    from transforms.recordings.script import say

    assert speakable("The fee is $75, or 20% off, within 5 business days.") == \
        "The fee is seventy five dollars, or twenty percent off, within five business days."
    assert speakable("Draft (2025-11-02): $12.50") == "Draft November second: twelve dollars and fifty cents"
    assert normalize("$1,200") == "one thousand two hundred dollars"
    # a fact's value is replaced whole, never inside a longer number
    assert say("The deposit is $50, not $500.", (facts[DEPOSIT],)) == \
        "The deposit is fifty dollars, not five hundred dollars."
    # words the pronouncing dictionary lacks split a phrase instead of breaking the grammar
    assert phrases_in_dictionary(["Pedalwisezz pass holders", "forty-five dollars"]) == \
        ["pass holders", "forty five dollars"]


def _hearing_case(facts, ctx, voice, tmp_path, reword=True):
    """A two-line voicemail whose statement line (the late fee) is first said by `voice`, delivered through
    the recording's own hearing (`transforms.recordings.hear_back`)."""
    from dataclasses import replace

    from transforms.extract import audio as A
    from transforms.recordings import script as S
    from transforms.recordings.hear_back import Hearing, Line

    fact = facts[FEE]
    spec = _spec("voicemail", facts, (FEE,), seed=3)
    notes: dict = {}
    hctx = replace(ctx, extraction_cache=tmp_path / "cache", notes=notes)
    statement = fact.statement
    lines = [Line("manager", A.STAFF_VOICES[0], S.say("Hi team, a quick update for the shop.")),
             Line("manager", voice, S.say(statement, (fact,)), facts=(fact,), role="state",
                  reword=(lambda r: ctx.writer.statement(fact, "voiced", r)) if reword else None)]
    hearing = Hearing(spec, hctx, hctx.workdir)

    def write(ls, dest):
        spoken = S.speak(ls, hctx.workdir, synth=hearing.synth)
        A.write_wav(dest, A.telephone(spoken.samples))
        return spoken.spans

    return spec, hctx, hearing, lines, write


@pytest.mark.slow
def test_a_misheard_line_is_revoiced_and_the_extraction_filed(facts, ctx, tmp_path):
    """A statement said too fast for the recogniser (real espeak synthesis, real decoding)
    is heard wrong in the file; the recording re-voices that line (the writer's other
    phrasing, a slower voice) until the file passes the gate's check, files the audit's
    extraction under the audit's own cache key, and does it again byte for byte."""
    from audits.extraction import jobs_for
    from facts.hashing import file_sha256
    from facts.match import TextIndex, match_fact
    from transforms.extract import audio as A
    from transforms.hearing import file_problems
    from transforms.recordings import script as S

    fast = A.Voice("en-us+f5", 230, 40)  # the staff voice, far faster than it speaks in calls
    spec, hctx, hearing, lines, write = _hearing_case(facts, ctx, fast, tmp_path)
    first = tmp_path / "first.wav"
    write(lines, first)
    heard = get_kind("voicemail").extract(first, ExtractContext(candidates=hearing.candidates)).text
    assert file_problems(spec, hctx.facts, heard, "wav"), f"the fast line was heard right: {heard!r}"

    out = tmp_path / "vm.wav"
    hearing.deliver(lines, write, out, S.say)
    assert lines[1].tries >= 1 and (lines[1].text, lines[1].voice) != lines[1].first
    assert lines[0].tries == 0 and (lines[0].text, lines[0].voice) == lines[0].first, "a line heard right is kept"
    assert hctx.notes == {"heard": True, "revoiced": 1}
    (job,) = jobs_for([spec], {spec.id: (out, file_sha256(out))}, hctx.facts)
    filed = tmp_path / "cache" / "extract" / job.key[:2] / f"{job.key}.json"
    assert filed.is_file(), "the extraction is filed under the audit's key"
    again = get_kind("voicemail").extract(out, ExtractContext(candidates=list(job.candidates)))
    assert filed.read_text(encoding="utf-8") == again.model_dump_json()
    assert match_fact(facts[FEE], TextIndex(again.text), speech=True).recovered, again.text

    # deterministic: the same lines heard again give the same file; the cache is read, not decoded
    spec2, hctx2, hearing2, lines2, write2 = _hearing_case(facts, ctx, fast, tmp_path)
    out2 = tmp_path / "vm2.wav"
    hearing2.deliver(lines2, write2, out2, S.say)
    assert out2.read_bytes() == out.read_bytes()
    assert hctx2.notes == {"heard": False, "revoiced": 1}


@pytest.mark.slow
def test_a_fact_never_heard_fails_naming_file_and_fact(facts, ctx, tmp_path):
    """A real recoverability failure is not papered over: a statement line that never says
    the value (so no re-voicing can make it heard) fails the render, naming file and fact."""
    from transforms.extract import audio as A
    from transforms.recordings import script as S

    spec, hctx, hearing, lines, write = _hearing_case(facts, ctx, A.STAFF_VOICES[0], tmp_path, reword=False)
    lines[1].text = lines[1].first[0].replace("twelve dollars", "a small amount")
    lines[1].first = (lines[1].text, lines[1].voice)
    with pytest.raises(FactforgeError) as e:
        hearing.deliver(lines, write, tmp_path / "vm.wav", S.say)
    assert spec.path in str(e.value) and facts[FEE].id in str(e.value), str(e.value)
    from transforms.recordings.hear_back import MAX_TRIES

    assert lines[1].tries == MAX_TRIES, "every variant of the line was tried"
    assert not (tmp_path / "cache").exists(), "a failing file's extraction is not filed"


def get_kind(kind: str):
    from transforms.registry import get

    return get(f"recordings/{kind}")


def test_a_restatement_says_again_only_what_the_line_said(facts, ctx, tmp_path):
    """The last variants restate a statement line's values in a sentence of their own ("That's
    twelve dollars."): a value said twice, the second time alone, gets a speech segment of its
    own. A line that never says the value gets no restatement (it must still fail)."""
    from transforms.extract import audio as A
    from transforms.recordings import script as S
    from transforms.recordings.hear_back import VARIANTS, restatement, variant

    import random

    _spec_, _hctx, _hearing, lines, _write = _hearing_case(facts, ctx, A.STAFF_VOICES[0], tmp_path, reword=False)
    line = lines[1]
    assert "twelve dollars" in line.text
    assert restatement(line) == "That's twelve dollars."
    n = next(i for i, v in enumerate(VARIANTS, 1) if v[4:] == (True,))
    text, _voice = variant(line, n, random.Random(0), S.say)
    assert text == f"{line.first[0]} That's twelve dollars."
    line.first = (line.first[0].replace("twelve dollars", "a small amount"), line.voice)
    assert restatement(line) == ""
