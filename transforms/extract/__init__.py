"""Modality extractors: delivered file -> text. Each kind's `extract` calls one of these.
They read only the file (text layer, parser, OCR, speech recognition), never the content
the renderer was given."""
