package admin

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
)

// Client calls the admin API, signing with SigV4 as any S3 client would.
type Client struct {
	endpoint string
	http     *http.Client
	creds    aws.Credentials
	signer   *v4.Signer
}

// NewClient returns a client of the node at endpoint (http://host:port);
// httpClient nil means http.DefaultClient.
func NewClient(endpoint, accessKey, secretKey string, httpClient *http.Client) *Client {
	if httpClient == nil {
		httpClient = http.DefaultClient
	}
	return &Client{endpoint: strings.TrimSuffix(endpoint, "/"), http: httpClient,
		creds: aws.Credentials{AccessKeyID: accessKey, SecretAccessKey: secretKey}, signer: v4.NewSigner()}
}

// Do makes one call: path is below Prefix ("/tenants"), in (if not nil)
// is sent as JSON and the response decoded into out (if not nil). An API
// error is returned as *Error.
func (c *Client) Do(ctx context.Context, method, path string, in, out any) error {
	data, err := c.Raw(ctx, method, path, in)
	if err != nil || out == nil || len(data) == 0 {
		return err
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("admin client: decode response: %w", err)
	}
	return nil
}

// Raw makes one call as Do does and returns the response body as sent
// (CSV, for example).
func (c *Client) Raw(ctx context.Context, method, path string, in any) ([]byte, error) {
	var buf bytes.Buffer
	err := c.Stream(ctx, method, path, in, &buf)
	return buf.Bytes(), err
}

// Stream makes one call as Do does and copies the response body to w as
// it arrives (an audit log export of any size).
func (c *Client) Stream(ctx context.Context, method, path string, in any, w io.Writer) error {
	var body []byte
	if in != nil {
		var err error
		if body, err = json.Marshal(in); err != nil {
			return fmt.Errorf("admin client: encode request: %w", err)
		}
	}
	req, err := http.NewRequestWithContext(ctx, method, c.endpoint+Prefix+path, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("admin client: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	sum := sha256.Sum256(body)
	hash := hex.EncodeToString(sum[:])
	req.Header.Set("X-Amz-Content-Sha256", hash)
	if err := c.signer.SignHTTP(ctx, c.creds, req, hash, "s3", "us-east-1", time.Now()); err != nil {
		return fmt.Errorf("admin client: sign: %w", err)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("admin client: %s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 300 {
		// An error body is one small JSON object.
		data, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		var e struct{ Error *Error }
		if json.Unmarshal(data, &e) != nil || e.Error == nil {
			return fmt.Errorf("admin client: %s %s: %s", method, path, resp.Status)
		}
		e.Error.Status = resp.StatusCode
		return e.Error
	}
	if _, err := io.Copy(w, resp.Body); err != nil {
		return fmt.Errorf("admin client: read response: %w", err)
	}
	return nil
}
