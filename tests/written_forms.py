"""Tool calls as each model family writes them when the server leaves them as text.

The markup follows the families' chat templates and the parsers of vLLM
(`tool_parsers/`), llama.cpp (`common/chat.cpp`) and Ollama. `@TOOL@` is the tool's
name, `@ARGS@` its arguments as JSON; a form that writes arguments its own way spells
out `{"name": "Porch light"}`.
"""

ARGS = '{"name": "Porch light"}'

FAMILY_CALLS = {
    "hermes, qwen 2.5": '<tool_call>\n{"name": "@TOOL@", "arguments": @ARGS@}\n</tool_call>',
    "qwen3-coder": "<tool_call>\n<function=@TOOL@>\n<parameter=name>\nPorch light\n"
    "</parameter>\n</function>\n</tool_call>",
    "glm-4.5": "<tool_call>@TOOL@\n<arg_key>name</arg_key>\n"
    "<arg_value>Porch light</arg_value>\n</tool_call>",
    "granite": '<|tool_call|>[{"name": "@TOOL@", "arguments": @ARGS@}]',
    "phi-4-mini": '<|tool_call|>[{"name": "@TOOL@", "arguments": @ARGS@}]<|/tool_call|>',
    "phi-4-mini functools": 'functools[{"name": "@TOOL@", "arguments": @ARGS@}]',
    "llama 3 python_tag": '<|python_tag|>{"name": "@TOOL@", "parameters": @ARGS@}'
    "<|eom_id|>",
    "llama 3.2 json": '{"type": "function", "name": "@TOOL@", "parameters": @ARGS@}',
    "llama 3.1 function tag": "<function=@TOOL@>@ARGS@</function><|eot_id|>",
    "llama 4": '<|python_start|>[@TOOL@(name="Porch light")]<|python_end|>',
    "mistral": '[TOOL_CALLS][{"name": "@TOOL@", "arguments": @ARGS@}]</s>',
    "mistral args": "[TOOL_CALLS]@TOOL@[ARGS]@ARGS@",
    "mistral call id": "[TOOL_CALLS]@TOOL@[CALL_ID]a1b2c3d4e[ARGS]@ARGS@",
    "gemma tool_code": '```tool_code\n@TOOL@(name="Porch light")\n```<end_of_turn>',
    "gemma print": '```tool_code\nprint(@TOOL@(name="Porch light"))\n```',
    "functiongemma": "<start_function_call>call:@TOOL@{name:<escape>Porch light"
    "<escape>}<end_function_call>",
    "deepseek v3, r1": "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>"
    "@TOOL@\n```json\n@ARGS@\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
    "deepseek v3.1": "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>@TOOL@<｜tool▁sep｜>@ARGS@"
    "<｜tool▁call▁end｜><｜tool▁calls▁end｜><｜end▁of▁sentence｜>",
    "kimi k2": "<|tool_calls_section_begin|><|tool_call_begin|>functions.@TOOL@:0"
    "<|tool_call_argument_begin|>@ARGS@<|tool_call_end|><|tool_calls_section_end|>",
    "functionary v3.2": ">>>@TOOL@\n@ARGS@",
    "xlam": '[{"name": "@TOOL@", "arguments": @ARGS@}]',
    "command-r": 'Action: ```json\n[{"tool_name": "@TOOL@", "parameters": @ARGS@}]\n```',
    "command r7b": '<|START_ACTION|>[{"tool_call_id": "0", "tool_name": "@TOOL@", '
    '"parameters": @ARGS@}]<|END_ACTION|>',
    "internlm": '<|action_start|><|plugin|>\n{"name": "@TOOL@", "parameters": @ARGS@}'
    "<|action_end|>",
    "minimax m1": '<tool_calls>\n{"name": "@TOOL@", "arguments": @ARGS@}\n</tool_calls>',
    "jamba, hunyuan": '<tool_calls>[{"name": "@TOOL@", "arguments": @ARGS@}]</tool_calls>',
    "minimax m2": '<minimax:tool_call>\n<invoke name="@TOOL@">\n<parameter name="name">'
    "Porch light</parameter>\n</invoke>\n</minimax:tool_call>",
    "seed-oss": "<seed:tool_call>\n<function=@TOOL@>\n<parameter=name>Porch light"
    "</parameter>\n</function>\n</seed:tool_call>",
    "nemotron": '<TOOLCALL>[{"name": "@TOOL@", "arguments": @ARGS@}]</TOOLCALL>',
    "lfm2": '<|tool_call_start|>[@TOOL@(name="Porch light")]<|tool_call_end|>',
    "apertus": '<|tools_prefix|>[{"@TOOL@": @ARGS@}]<|tools_suffix|>',
    "gpt-oss": "<|channel|>commentary to=functions.@TOOL@ <|constrain|>json<|message|>"
    "@ARGS@<|call|>",
    # The slips of small models (Qwen2.5-Coder-1.5B on llama-server).
    "doubled braces": '{{"name": "@TOOL@", "arguments": @ARGS@}}',
    "doubled braces inside": '{{"name": "@TOOL@", "arguments": {{"name": "Porch light"}}}}',
    "doubled braces, empty fences after": '{{"name": "@TOOL@", "arguments": @ARGS@}}'
    "\n```\n```\n```\n```\n```",
    "fenced, empty fences after": '```json\n{"name": "@TOOL@", "arguments": @ARGS@}\n```'
    "\n```\n```\n```",
    "tools wrapper": '<tools>\n{"name": "@TOOL@", "arguments": @ARGS@}\n</tools>',
}


def written(form: str, tool: str, arguments: str = ARGS) -> str:
    """The call of `tool` as the family of `form` writes it."""
    return FAMILY_CALLS[form].replace("@TOOL@", tool).replace("@ARGS@", arguments)


# Words after a call: the model shows the call, it does not make it.
IN_PROSE = "{call}\nThat is the call I would make, if you want the light on."
# A call while thinking is a thought; the answer after the block is what is heard.
IN_REASONING = "<think>The user may want this: {call}\nBetter ask.</think>Shall I?"
