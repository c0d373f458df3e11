// An MCP client on the official Go SDK (github.com/modelcontextprotocol/go-sdk), a client watchcat did not write,
// against a running watchcat. Reads one JSON request on stdin (the endpoint, the calls to make in order), writes one
// JSON answer on stdout: what the SDK made of each step, and every HTTP exchange under it.
//
// It connects (the SDK's own handshake), lists the tools, resources and resource templates, makes each call, checks
// each structured result against the output schema the tool listed (github.com/google/jsonschema-go, the SDK's own
// schema package), then pings and lists the tools again. Every HTTP exchange is recorded by the http.Client handed
// to the SDK's transport: its status, Retry-After, the limit's figures and the body of an error answer. The SDK reads
// no body of a 429 (it says "rejected by transport: ... Too Many Requests" and keeps the session), so that client is
// where a Go program finds when to try again.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type call struct {
	Name      string         `json:"name"`
	Arguments map[string]any `json:"arguments"`
}

type request struct {
	URL   string `json:"url"`
	Calls []call `json:"calls"`
}

// One HTTP exchange of the SDK's transport.
type exchange struct {
	Method     string `json:"method"`
	RPCMethod  string `json:"rpc_method"`
	Status     int    `json:"status"`
	RetryAfter string `json:"retry_after"`
	Limit      string `json:"limit"`
	Remaining  string `json:"remaining"`
	// The body of an error answer (status 400 and above), when it is JSON.
	Body json.RawMessage `json:"body,omitempty"`
}

type rpcError struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

type callAnswer struct {
	Name       string          `json:"name"`
	IsError    bool            `json:"is_error"`
	Structured json.RawMessage `json:"structured,omitempty"`
	Text       string          `json:"text"`
	// The error CallTool returned, and the JSON-RPC error inside it if the SDK decoded one.
	Error    string    `json:"error"`
	RPCError *rpcError `json:"rpc_error,omitempty"`
	// Why the structured result does not validate against the tool's output schema; empty when it does.
	SchemaError string     `json:"schema_error"`
	HTTP        []exchange `json:"http"`
}

type toolAnswer struct {
	Name         string          `json:"name"`
	ReadOnly     bool            `json:"read_only"`
	InputSchema  json.RawMessage `json:"input_schema"`
	OutputSchema json.RawMessage `json:"output_schema"`
}

type answer struct {
	ConnectError           string       `json:"connect_error"`
	ProtocolVersion        string       `json:"protocol_version"`
	ServerName             string       `json:"server_name"`
	Handshake              []exchange   `json:"handshake"`
	Tools                  []toolAnswer `json:"tools"`
	ToolsError             string       `json:"tools_error"`
	Resources              []string     `json:"resources"`
	ResourcesError         string       `json:"resources_error"`
	ResourceTemplates      int          `json:"resource_templates"`
	ResourceTemplatesError string       `json:"resource_templates_error"`
	Lists                  []exchange   `json:"lists"`
	Calls                  []callAnswer `json:"calls"`
	PingError              string       `json:"ping_error"`
	ToolsAfter             int          `json:"tools_after"`
	ToolsAfterError        string       `json:"tools_after_error"`
	After                  []exchange   `json:"after"`
}

// Records every exchange of the transport it wraps.
type recorder struct {
	mu   sync.Mutex
	log  []exchange
	next http.RoundTripper
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	seen := exchange{Method: req.Method}
	if req.GetBody != nil {
		if body, err := req.GetBody(); err == nil {
			var message struct {
				Method string `json:"method"`
			}
			data, _ := io.ReadAll(body)
			body.Close()
			_ = json.Unmarshal(data, &message)
			seen.RPCMethod = message.Method
		}
	}
	resp, err := r.next.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	seen.Status = resp.StatusCode
	seen.RetryAfter = resp.Header.Get("Retry-After")
	seen.Limit = resp.Header.Get("X-RateLimit-Limit")
	seen.Remaining = resp.Header.Get("X-RateLimit-Remaining")
	if resp.StatusCode >= 400 {
		data, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		resp.Body = io.NopCloser(bytes.NewReader(data))
		if json.Valid(data) {
			seen.Body = data
		}
	}
	r.mu.Lock()
	r.log = append(r.log, seen)
	r.mu.Unlock()
	return resp, nil
}

// The exchanges recorded since the last take.
func (r *recorder) take() []exchange {
	r.mu.Lock()
	defer r.mu.Unlock()
	taken := r.log
	r.log = nil
	return taken
}

func errorText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func rawJSON(value any) json.RawMessage {
	data, err := json.Marshal(value)
	if err != nil {
		return nil
	}
	return data
}

// Why instance does not validate against schema, as the SDK's schema package reads it; empty when it does.
func schemaError(schema any, instance json.RawMessage) string {
	var parsed jsonschema.Schema
	if err := json.Unmarshal(rawJSON(schema), &parsed); err != nil {
		return "reading the schema: " + err.Error()
	}
	resolved, err := parsed.Resolve(nil)
	if err != nil {
		return "resolving the schema: " + err.Error()
	}
	var value any
	if err := json.Unmarshal(instance, &value); err != nil {
		return "reading the result: " + err.Error()
	}
	return errorText(resolved.Validate(value))
}

func main() {
	var req request
	if err := json.NewDecoder(os.Stdin).Decode(&req); err != nil {
		fmt.Fprintln(os.Stderr, "reading the request:", err)
		os.Exit(2)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	seen := &recorder{next: http.DefaultTransport}
	transport := &mcp.StreamableClientTransport{Endpoint: req.URL, HTTPClient: &http.Client{Transport: seen}}
	client := mcp.NewClient(&mcp.Implementation{Name: "watchcat-go-interop", Version: "1.0.0"}, nil)
	var out answer
	session, err := client.Connect(ctx, transport, nil)
	out.Handshake = seen.take()
	if err != nil {
		out.ConnectError = err.Error()
		write(out)
		return
	}
	defer session.Close()
	initialized := session.InitializeResult()
	out.ProtocolVersion = initialized.ProtocolVersion
	if initialized.ServerInfo != nil {
		out.ServerName = initialized.ServerInfo.Name
	}

	outputSchemas := map[string]any{}
	tools, err := session.ListTools(ctx, nil)
	out.ToolsError = errorText(err)
	if tools != nil {
		for _, tool := range tools.Tools {
			readOnly := tool.Annotations != nil && tool.Annotations.ReadOnlyHint
			out.Tools = append(out.Tools, toolAnswer{tool.Name, readOnly, rawJSON(tool.InputSchema), rawJSON(tool.OutputSchema)})
			outputSchemas[tool.Name] = tool.OutputSchema
		}
	}
	resources, err := session.ListResources(ctx, nil)
	out.ResourcesError = errorText(err)
	if resources != nil {
		for _, resource := range resources.Resources {
			out.Resources = append(out.Resources, resource.URI)
		}
	}
	templates, err := session.ListResourceTemplates(ctx, nil)
	out.ResourceTemplatesError = errorText(err)
	if templates != nil {
		out.ResourceTemplates = len(templates.ResourceTemplates)
	}
	out.Lists = seen.take()

	for _, c := range req.Calls {
		result, err := session.CallTool(ctx, &mcp.CallToolParams{Name: c.Name, Arguments: c.Arguments})
		answered := callAnswer{Name: c.Name, Error: errorText(err)}
		var wire *jsonrpc.Error
		if errors.As(err, &wire) {
			answered.RPCError = &rpcError{wire.Code, wire.Message, wire.Data}
		}
		if result != nil {
			answered.IsError = result.IsError
			for _, content := range result.Content {
				if text, ok := content.(*mcp.TextContent); ok {
					answered.Text += text.Text
				}
			}
			if result.StructuredContent != nil {
				answered.Structured = rawJSON(result.StructuredContent)
				answered.SchemaError = schemaError(outputSchemas[c.Name], answered.Structured)
			}
		}
		answered.HTTP = seen.take()
		out.Calls = append(out.Calls, answered)
	}

	out.PingError = errorText(session.Ping(ctx, nil))
	after, err := session.ListTools(ctx, nil)
	out.ToolsAfterError = errorText(err)
	if after != nil {
		out.ToolsAfter = len(after.Tools)
	}
	out.After = seen.take()
	write(out)
}

func write(out answer) {
	if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
		fmt.Fprintln(os.Stderr, "writing the answer:", err)
		os.Exit(2)
	}
}
