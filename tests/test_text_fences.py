"""Code fences in plain text (symattn.article.text): fenced lines are code or output, the
fence marks are read as spaces so glued code keeps its source columns. Truths written by hand."""

from symattn.article.text import read

FORUM = ("code:\n"
         "``````import torch\n"
         "x = torch.var(b)\n"
         "``````\n"
         "for layernorm:\n"
         "``````tensor([[ 1.0690,  0.2673],\n"
         "[-0.7071,  1.4142]])\n"
         "std: tensor(1.2247)\n"
         "``````\n"
         "done 2.5\n")


def test_forum_fences_kinds_and_numbers():
    lines = read(FORUM)
    assert [ln.number for ln in lines] == list(range(1, 11))
    assert [ln.kind for ln in lines] == ["text", "code", "code", "code", "text",
                                         "output", "output", "output", "output", "text"]


def test_glued_code_keeps_its_columns():
    lines = read(FORUM)
    src = FORUM.split("\n")
    second = lines[1]
    k = second.text.index("import")
    assert second.column(k) == 7                    # after six backticks, 1-based
    assert src[1][second.column(k) - 1:].startswith("import torch")
    out = lines[5]
    k = out.text.index("1.0690")
    assert src[5][out.column(k) - 1:].startswith("1.0690")
    assert "`" not in "".join(ln.text for ln in lines)


def test_language_word_is_no_code():
    lines = read("```python\nimport torch\n```\n")
    assert [ln.kind for ln in lines] == ["code", "code", "code"]
    assert lines[0].text.strip() == ""              # "python" names the language


def test_output_fence_and_comment_printout():
    lines = read("```text\n1.5 2.5\n```\n```\nprint(y)\n# tensor([1.2500])\n```\n")
    assert [ln.kind for ln in lines][:3] == ["output"] * 3
    assert lines[4].kind == "code"
    assert lines[5].kind == "output" and "#" not in lines[5].text
    assert "1.2500" in lines[5].text


def test_unclosed_fence_is_no_fence():
    lines = read("``` a stray mark\nx = 3.5\n")
    assert [ln.kind for ln in lines] == ["text", "text"]


def test_tilde_fence_closed_by_as_many_marks():
    lines = read("~~~~\na = 1\n~~~\nb = 2\n~~~~\nafter 3\n")
    assert [ln.kind for ln in lines] == ["code"] * 5 + ["text"]
